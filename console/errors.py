"""Error pages outside /api/: a browser that follows a stale link or opens another
organization's app gets a page it can read, not JSON. /api/ keeps the envelope."""

from __future__ import annotations

from django.shortcuts import render

from attribution_site.api.middleware import envelope_response


def not_found(request, exception=None):
    if request.path.startswith("/api/"):
        return envelope_response(404)
    return render(request, "console/errors/404.html", status=404)


def server_error(request):
    if request.path.startswith("/api/"):
        return envelope_response(500)
    # No request context: whatever failed may fail again while rendering it.
    return render(None, "console/errors/500.html", status=500)
