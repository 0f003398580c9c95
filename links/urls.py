"""The links API under /api/v1/ (links, link domains, QR codes, reports, deep-link resolve).
The public side (/l/{code}, custom link domains, association files) is in links/follow.py."""

from django.urls import include, path

urlpatterns = [
    path("", include("links.api_views")),
    path("", include("links.resolve")),
]
