"""Web routes: the API's under /api/v1/ (`urlpatterns`), the script's files at the site root
(`root_urlpatterns`, /sdk/web/)."""

from django.urls import path

from web import sdk_files

urlpatterns: list = []

root_urlpatterns = [
    path("sdk/web/<str:name>", sdk_files.sdk_file, name="web-sdk-file"),
]
