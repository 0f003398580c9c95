from django.urls import path

from accounts import views

urlpatterns = [
    path("auth/signup", views.SignupView.as_view(), name="auth-signup"),
    path("auth/login", views.LoginView.as_view(), name="auth-login"),
    path("auth/me", views.MeView.as_view(), name="auth-me"),
    path("org/members", views.MemberListView.as_view(), name="org-members"),
    path("org/members/<uuid:member_id>", views.MemberDetailView.as_view(), name="org-member"),
]
