"""Routes of consent, mounted under /api/v1/."""

from django.urls import path

from consent import views

urlpatterns = [
    path("consent", views.ConsentChangeView.as_view(), name="consent"),
]
