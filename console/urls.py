"""The console under /console/: one included module per area (see console/views/)."""

from django.urls import include, path

app_name = "console"

AREAS = ("auth", "apps", "reports", "installs", "keys", "deliveries", "costs", "link_builder",
         "links", "conversion")

urlpatterns = [path("", include(f"console.views.{area}")) for area in AREAS]
