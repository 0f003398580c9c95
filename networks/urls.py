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
    path("apps/<uuid:app_id>/integrations/tiktok", views.TikTokIntegrationView.as_view(),
         name="integrations-tiktok"),
    path("apps/<uuid:app_id>/integrations/apple_ads", views.AppleAdsIntegrationView.as_view(),
         name="integrations-apple-ads"),
    path("apps/<uuid:app_id>/integrations/<str:network>/cost-pulls",
         views.CostPullsView.as_view(), name="integrations-cost-pulls"),
]
