from django.urls import path

from web_to_app import views

urlpatterns = [
    path("apps/<uuid:app_id>/banner", views.BannerSettingsView.as_view(), name="app-banner"),
]
