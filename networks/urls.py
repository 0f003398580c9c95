"""Routes of integrations, mounted under /api/v1/."""

from django.urls import path

from networks import views

urlpatterns = [
    path("apps/<uuid:app_id>/integrations", views.IntegrationsView.as_view(),
         name="integrations"),
    path("apps/<uuid:app_id>/integrations/meta", views.MetaIntegrationView.as_view(),
         name="integrations-meta"),
    path("apps/<uuid:app_id>/integrations/google_ads", views.GoogleAdsIntegrationView.as_view(),
         name="integrations-google-ads"),
]
