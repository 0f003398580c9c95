from django.urls import path

from tracking import views

urlpatterns = [
    path("clicks", views.click_redirect, name="clicks"),
    path("installs", views.InstallsView.as_view(), name="installs"),
    path("installs/<uuid:install_id>", views.InstallDetailView.as_view(), name="install-detail"),
    path("events", views.EventsView.as_view(), name="events"),
]
