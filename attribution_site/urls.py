"""Root URLs: the versioned API under /api/v1/, its schema and docs, health, and the admin."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from attribution_site import health
from attribution_site.api.middleware import envelope_response

api_v1 = [
    path("", include("accounts.urls")),
    path("", include("apps_registry.urls")),
    path("", include("delivery.urls")),
    path("", include("tracking.urls")),
    path("", include("analytics.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("admin/", admin.site.urls),
]


def handler404(request, exception=None):
    return envelope_response(404)


def handler500(request):
    return envelope_response(500)
