"""Error codes and the one exception handler that writes every error body (spec: Errors).

Views raise; this module turns any exception into `{success: false, error: {code, message,
details}}`. `details` is always an object: for VALIDATION_ERROR it maps each field to a list of
messages (`non_field_errors` for the body as a whole).
"""

from __future__ import annotations

import enum
import logging
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions as drf
from rest_framework.response import Response

logger = logging.getLogger(__name__)


class ErrorCode(enum.Enum):
    VALIDATION_ERROR = 400
    UNAUTHORIZED = 401
    FORBIDDEN = 403
    NOT_FOUND = 404
    METHOD_NOT_ALLOWED = 405  # not in the spec's table; see docs/decisions.md
    CONFLICT = 409
    RATE_LIMITED = 429
    INTERNAL_ERROR = 500

    @property
    def status(self) -> int:
        return self.value


class ApiError(Exception):
    """An error with one of the spec's codes; raise it (or a subclass) from any layer."""

    code = ErrorCode.INTERNAL_ERROR
    default_message = "Internal server error."

    def __init__(self, message: str | None = None, details: dict[str, Any] | None = None):
        self.message = message or self.default_message
        self.details = details or {}
        super().__init__(self.message)


class ValidationFailed(ApiError):
    code = ErrorCode.VALIDATION_ERROR
    default_message = "The request is invalid."


class Unauthorized(ApiError):
    code = ErrorCode.UNAUTHORIZED
    default_message = "Authentication credentials are missing or invalid."


class Forbidden(ApiError):
    code = ErrorCode.FORBIDDEN
    default_message = "You do not have permission to do this."


class NotFound(ApiError):
    code = ErrorCode.NOT_FOUND
    default_message = "Not found."


class Conflict(ApiError):
    code = ErrorCode.CONFLICT
    default_message = "The resource already exists."


class RateLimited(ApiError):
    code = ErrorCode.RATE_LIMITED
    default_message = "Too many requests."

    def __init__(self, retry_after: int, message: str | None = None):
        self.retry_after = max(1, int(retry_after))
        super().__init__(message, {"retry_after": self.retry_after})


def error_body(code: ErrorCode, message: str, details: dict[str, Any] | None = None) -> dict:
    return {
        "success": False,
        "error": {"code": code.name, "message": message, "details": details or {}},
    }


def _field_details(detail: Any) -> dict[str, list[str]]:
    """DRF's nested ErrorDetail structures flattened to {field: [messages]}."""
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for field, value in detail.items():
            out[str(field)] = _messages(value)
        return out
    return {"non_field_errors": _messages(detail)}


def _messages(value: Any) -> list[str]:
    if isinstance(value, list):
        flat: list[str] = []
        for item in value:
            if isinstance(item, dict):
                flat.extend(f"{k}: {m}" for k, v in item.items() for m in _messages(v))
            else:
                flat.extend(_messages(item))
        return flat
    if isinstance(value, dict):
        return [f"{k}: {m}" for k, v in value.items() for m in _messages(v)]
    return [str(value)]


def _validation_message(details: dict[str, list[str]]) -> str:
    fields = [f for f in details if f != "non_field_errors"]
    if fields:
        return "Invalid input: " + ", ".join(fields) + "."
    return details.get("non_field_errors", ["Invalid input."])[0]


def translate(exc: Exception) -> tuple[ErrorCode, str, dict, dict[str, str]]:
    """Map any exception to (code, message, details, extra headers)."""
    if isinstance(exc, RateLimited):
        return exc.code, exc.message, exc.details, {"Retry-After": str(exc.retry_after)}
    if isinstance(exc, ApiError):
        return exc.code, exc.message, exc.details, {}
    if isinstance(exc, drf.ValidationError):
        details = _field_details(exc.detail)
        return ErrorCode.VALIDATION_ERROR, _validation_message(details), details, {}
    if isinstance(exc, drf.ParseError):
        return ErrorCode.VALIDATION_ERROR, f"Malformed request body: {exc.detail}", {
            "body": [str(exc.detail)]}, {}
    if isinstance(exc, drf.UnsupportedMediaType):
        return ErrorCode.VALIDATION_ERROR, str(exc.detail), {
            "content_type": ["Send the body as application/json."]}, {}
    if isinstance(exc, (drf.NotAuthenticated, drf.AuthenticationFailed)):
        return ErrorCode.UNAUTHORIZED, _plain(exc.detail), {}, {}
    if isinstance(exc, (drf.PermissionDenied, PermissionDenied)):
        message = _plain(exc.detail) if isinstance(exc, drf.APIException) else str(exc)
        return ErrorCode.FORBIDDEN, message or Forbidden.default_message, {}, {}
    if isinstance(exc, (drf.NotFound, Http404)):
        return ErrorCode.NOT_FOUND, NotFound.default_message, {}, {}
    if isinstance(exc, drf.MethodNotAllowed):
        return ErrorCode.METHOD_NOT_ALLOWED, _plain(exc.detail), {}, {}
    if isinstance(exc, drf.Throttled):
        wait = max(1, int(exc.wait or 1))
        return ErrorCode.RATE_LIMITED, RateLimited.default_message, {"retry_after": wait}, {
            "Retry-After": str(wait)}
    if isinstance(exc, drf.NotAcceptable):
        return ErrorCode.VALIDATION_ERROR, _plain(exc.detail), {"accept": [
            "Only application/json responses are available."]}, {}
    return ErrorCode.INTERNAL_ERROR, ApiError.default_message, {}, {}


def _plain(detail: Any) -> str:
    if isinstance(detail, dict):
        return "; ".join(str(v) for v in detail.values())
    return str(detail)


def envelope_exception_handler(exc: Exception, context: dict) -> Response:
    code, message, details, headers = translate(exc)
    if code is ErrorCode.INTERNAL_ERROR:
        view = context.get("view")
        logger.exception("Unhandled error in %s", type(view).__name__ if view else "view",
                         exc_info=exc)
    response = Response(error_body(code, message, details), status=code.status, headers=headers)
    if isinstance(exc, drf.MethodNotAllowed) and context.get("view") is not None:
        response["Allow"] = ", ".join(context["view"].allowed_methods)
    return response
