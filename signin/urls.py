from django.urls import path

from signin import views

urlpatterns = [
    path("org/sso", views.SsoView.as_view(), name="sso"),
    path("org/two-factor", views.TwoFactorRuleView.as_view(), name="two-factor"),
    path("auth/otp", views.OtpView.as_view(), name="otp"),
    path("auth/otp/enrol", views.OtpEnrolView.as_view(), name="otp-enrol"),
    path("auth/otp/confirm", views.OtpConfirmView.as_view(), name="otp-confirm"),
]
