"""PLACEHOLDER: replaced by the area's real pages."""
# ruff: noqa: E501

from django.shortcuts import render
from django.urls import path

from console.pages import AppPage


class Placeholder(AppPage):
    def get(self, request, app_id, **kwargs):
        return render(request, "console/placeholder.html", self.context())


urlpatterns = [
    path("apps/<uuid:app_id>/deliveries", Placeholder.as_view(section="deliveries"), name="deliveries"),
]
