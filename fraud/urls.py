"""Routes of fraud protection, mounted under /api/v1/."""

from django.urls import path

from fraud import views

urlpatterns = [
    path("apps/<str:app_id>/fraud-settings", views.FraudSettingsView.as_view(),
         name="fraud-settings"),
]
