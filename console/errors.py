"""Error pages outside /api/: a browser that follows a stale link or opens another
organization's app gets a page it can read, not JSON. /api/ keeps the envelope."""

from __future__ import annotations

from django.shortcuts import render

from attribution_site.api.middleware import envelope_response


def not_found(request, exception=None):
    if request.path.startswith("/api/"):
        return envelope_response(404)
    return render(request, "console/errors/404.html", status=404)


def permission_denied(request, exception=None):
    """The not-allowed page: what the person's role may not do, said by the permission rule
    (console/pages.py raises it with the refusal). A CSRF failure has its own view."""
    if request.path.startswith("/api/"):
        return envelope_response(403)
    message = str(exception) if exception is not None and str(exception) else ""
    return render(request, "console/errors/403.html", {
        "message": message, "write": request.method not in ("GET", "HEAD")}, status=403)


def server_error(request):
    if request.path.startswith("/api/"):
        return envelope_response(500)
    # No request context: whatever failed may fail again while rendering it.
    return render(None, "console/errors/500.html", status=500)
