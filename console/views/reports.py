"""PLACEHOLDER: replaced by the area's real pages."""
# ruff: noqa: E501

from django.shortcuts import render
from django.urls import path

from console.pages import AppPage


class Placeholder(AppPage):
    def get(self, request, app_id, **kwargs):
        return render(request, "console/placeholder.html", self.context())


urlpatterns = [
    path("apps/<uuid:app_id>/", Placeholder.as_view(section="overview"), name="overview"),
    path("apps/<uuid:app_id>/sources", Placeholder.as_view(section="sources"), name="sources"),
    path("apps/<uuid:app_id>/campaigns", Placeholder.as_view(section="campaigns"), name="campaigns"),
    path("apps/<uuid:app_id>/cohorts", Placeholder.as_view(section="cohorts"), name="cohorts"),
    path("apps/<uuid:app_id>/revenue", Placeholder.as_view(section="revenue"), name="revenue"),
    path("apps/<uuid:app_id>/exports", Placeholder.as_view(section="exports"), name="exports"),
]
