"""Routes of raw-data export, mounted under /api/v1/ (docs/export.md)."""

from django.urls import path

from raw_export import views

urlpatterns = [
    path("data-destinations", views.DestinationListView.as_view(),
         name="data-destination-list"),
    path("data-destinations/<uuid:destination_id>", views.DestinationDetailView.as_view(),
         name="data-destination-detail"),
    path("data-destinations/<uuid:destination_id>/test", views.DestinationTestView.as_view(),
         name="data-destination-test"),
    path("data-destinations/<uuid:destination_id>/runs", views.DestinationRunsView.as_view(),
         name="data-destination-runs"),
]
