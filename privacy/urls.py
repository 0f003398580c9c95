"""Routes of privacy, mounted under /api/v1/ (docs/privacy.md)."""

from django.urls import path

from privacy import views

urlpatterns = [
    path("privacy/requests", views.SubjectRequestsView.as_view(), name="privacy-requests"),
    path("privacy/requests/<uuid:request_id>", views.SubjectRequestDetailView.as_view(),
         name="privacy-request-detail"),
    path("privacy/forget", views.ForgetView.as_view(), name="privacy-forget"),
    path("privacy/documents/<str:token>", views.AccessDocumentView.as_view(),
         name="privacy-document"),
]
