"""No HTML ever reaches a client of `/api/` (spec: Errors).

DRF views already answer in the envelope. This middleware covers what happens outside them:
Django's own 404 and 405, errors raised by other middleware, request-size errors, and any
unhandled exception (logged with its traceback, answered as 500 INTERNAL_ERROR).
"""

from __future__ import annotations

import json
import logging

from django.http import HttpRequest, HttpResponse, JsonResponse

from attribution_site.api.exceptions import ErrorCode, error_body

logger = logging.getLogger("attribution_site.api")

_MESSAGES = {
    ErrorCode.VALIDATION_ERROR: "The request is invalid.",
    ErrorCode.UNAUTHORIZED: "Authentication credentials are missing or invalid.",
    ErrorCode.FORBIDDEN: "You do not have permission to do this.",
    ErrorCode.NOT_FOUND: "No such endpoint.",
    ErrorCode.METHOD_NOT_ALLOWED: "Method not allowed.",
    ErrorCode.RATE_LIMITED: "Too many requests.",
    ErrorCode.INTERNAL_ERROR: "Internal server error.",
}


def error_code_for_status(status: int) -> ErrorCode:
    for code in ErrorCode:
        if code.status == status:
            return code
    return ErrorCode.VALIDATION_ERROR if status < 500 else ErrorCode.INTERNAL_ERROR


def envelope_response(status: int, message: str | None = None) -> JsonResponse:
    code = error_code_for_status(status)
    return JsonResponse(error_body(code, message or _MESSAGES.get(code, "Error.")),
                        status=code.status)


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
            replacement = envelope_response(response.status_code)
            if response.has_header("Allow"):
                replacement["Allow"] = response["Allow"]
            if response.has_header("Retry-After"):
                replacement["Retry-After"] = response["Retry-After"]
            return replacement
        return response

    def process_exception(self, request: HttpRequest, exception: Exception):
        if not request.path.startswith("/api/"):
            return None
        logger.exception("Unhandled error on %s %s", request.method, request.path,
                         exc_info=exception)
        return envelope_response(500)


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
