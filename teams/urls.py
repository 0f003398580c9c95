from django.urls import path

from teams import views

urlpatterns = [
    path("org/invitations", views.InvitationListView.as_view(), name="invitation-list"),
    path("org/invitations/<uuid:invitation_id>", views.InvitationDetailView.as_view(),
         name="invitation-detail"),
    path("auth/invitations/accept", views.InvitationAcceptView.as_view(),
         name="invitation-accept"),
    path("auth/tokens", views.AccessTokenListView.as_view(), name="access-token-list"),
    path("auth/tokens/<uuid:token_id>", views.AccessTokenDetailView.as_view(),
         name="access-token-detail"),
]
