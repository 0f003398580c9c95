from django.urls import path

from web_to_app import report_views, views, web_views

urlpatterns = [
    path("apps/<uuid:app_id>/banner", views.BannerSettingsView.as_view(), name="app-banner"),
    path("analytics/web-to-app", report_views.WebToAppView.as_view(), name="web-to-app"),
    path("web/banner", web_views.BannerView.as_view(), name="web-banner"),
    path("web/banner-events", web_views.BannerEventsView.as_view(), name="web-banner-events"),
]
