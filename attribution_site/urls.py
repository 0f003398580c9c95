"""Root URLs: the versioned API under /api/v1/, its schema and docs, the console under /console/
(where / leads), health, and the admin. Each app's routes are in its `urls.py`: `urlpatterns`
go under the app's prefix, `root_urlpatterns` (links, skan) at the site root
(docs/architecture.md, "URLs")."""

from django.contrib import admin
from django.shortcuts import redirect
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from attribution_site import health
from console import errors
from links import urls as links_urls
from skan import urls as skan_urls
from web import urls as web_urls

api_v1 = [
    path("", include("accounts.urls")),
    path("", include("apps_registry.urls")),
    path("", include("delivery.urls")),
    path("", include("tracking.urls")),
    path("", include("analytics.urls")),
    path("", include("links.urls")),
    path("", include("conversion.urls")),
    path("", include("skan.urls")),
    path("", include("consent.urls")),
    path("", include("privacy.urls")),
    path("", include("networks.urls")),
    path("", include("fraud.urls")),
    path("", include("raw_export.urls")),
    path("", include("web.urls")),
    path("", include("web_to_app.urls")),
    path("", include("audit.urls")),
    path("", include("teams.urls")),
    path("", include("signin.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
]


def home(request):
    """A visitor starts in the console: its home page, or the login page that leads there."""
    return redirect("console:home" if request.user.is_authenticated else "console:login")


urlpatterns = [
    path("", home, name="home"),
    path("console/", include("console.urls")),
    path("", include(links_urls.root_urlpatterns)),  # /l/{code}, association files
    path("", include(skan_urls.root_urlpatterns)),  # Apple's well-known postback paths
    path("", include(web_urls.root_urlpatterns)),  # /sdk/web/: the web script's files
    path("api/v1/", include(api_v1)),
    # The docs page renders only HTML: DRF's OPTIONS answer (JSON metadata) has no template.
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema",
                                                     http_method_names=["get", "head"]),
         name="api-docs"),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("admin/", admin.site.urls),
]


handler403 = errors.permission_denied
handler404 = errors.not_found
handler500 = errors.server_error
