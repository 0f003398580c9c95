"""Web routes: the API's under /api/v1/ (`urlpatterns`), the script's files at the site root
(`root_urlpatterns`, /sdk/web/)."""

from django.urls import path

from web import sdk_files, views

urlpatterns = [
    path("web/visits", views.WebVisitView.as_view(), name="web-visits"),
    path("web/events", views.WebEventView.as_view(), name="web-events"),
    path("web/identify", views.WebIdentifyView.as_view(), name="web-identify"),
    path("web/consent", views.WebConsentView.as_view(), name="web-consent"),
]

root_urlpatterns = [
    path("sdk/web/<str:name>", sdk_files.sdk_file, name="web-sdk-file"),
]
