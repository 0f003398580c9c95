"""No HTML ever reaches a client of `/api/` (spec: Errors).

DRF views already answer in the envelope. This middleware covers what happens outside them:
Django's own 404 and 405, errors raised by other middleware, request-size errors, and any
unhandled exception (logged with its traceback, answered as 500 INTERNAL_ERROR).
"""

from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse, JsonResponse

from attribution_site.api import envelope
from attribution_site.api.exceptions import api_error, error_for_status


def envelope_response(status: int, *, replacing: HttpResponse | None = None) -> JsonResponse:
    """The envelope for a bare status (also Django's handler404 and handler500)."""
    return envelope.error_response(error_for_status(status), replacing=replacing)


class ApiErrorEnvelopeMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code >= 400
            and request.path.startswith("/api/")
            and not _is_json(response)
        ):
            return envelope_response(response.status_code, replacing=response)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception):
        if not request.path.startswith("/api/"):
            return None
        error = api_error(exception, where=f"{request.method} {request.path}")
        return envelope.error_response(error)


def _is_json(response: HttpResponse) -> bool:
    content_type = response.get("Content-Type", "")
    if not content_type.startswith("application/json"):
        return False
    if getattr(response, "streaming", False):
        return True
    try:
        json.loads(response.content or b"null")
    except ValueError:
        return False
    return True
