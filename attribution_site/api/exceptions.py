"""Error codes and the errors views raise (spec: Errors), each with its status and message.

Views and services raise an `ApiError`; `api_error` says which one any other exception (DRF's,
Django's, or an unexpected one) stands for, and `envelope_exception_handler`, DRF's handler,
answers it through the envelope (attribution_site/api/envelope.py), as the SDK endpoints and the
middleware do. `details` is always an object: for VALIDATION_ERROR it maps each field to a list
of messages (`non_field_errors` for the body as a whole).
"""

from __future__ import annotations

import enum
import logging
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import DatabaseError
from django.http import Http404
from psycopg_pool import PoolTimeout
from rest_framework import exceptions as drf
from rest_framework.response import Response

from attribution_site.api import envelope

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
    retry_after: int | None = None

    def __init__(self, message: str | None = None, details: dict[str, Any] | None = None):
        self.message = message or self.default_message
        self.details = details or {}
        super().__init__(self.message)

    @property
    def status(self) -> int:
        return self.code.status


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


class NoSuchEndpoint(NotFound):
    default_message = "No such endpoint."


class MethodNotAllowed(ApiError):
    code = ErrorCode.METHOD_NOT_ALLOWED
    default_message = "Method not allowed."


class Conflict(ApiError):
    code = ErrorCode.CONFLICT
    default_message = "The resource already exists."


class RateLimited(ApiError):
    """Over a limit; without `retry_after` (a bare 429 from elsewhere) the wait is not known."""

    code = ErrorCode.RATE_LIMITED
    default_message = "Too many requests."

    def __init__(self, retry_after: int | None = None, message: str | None = None):
        if retry_after is None:
            super().__init__(message)
            return
        self.retry_after = max(1, int(retry_after))
        super().__init__(message, {"retry_after": self.retry_after})


class ServiceUnavailable(ApiError):
    """A backing service is down (/readyz): the spec has no code of its own for it."""

    default_message = "A backing service is unavailable."

    @property
    def status(self) -> int:
        return 503


class PoolExhausted(ServiceUnavailable):
    """Every connection of this process's pool stayed busy for DATABASE_POOL_TIMEOUT
    (docs/pooling.md): nothing was stored, and an SDK retries a 503 after Retry-After."""

    default_message = "The service is at capacity; retry shortly."
    retry_after = 1


class CredentialsRefused(drf.AuthenticationFailed):
    """An authentication class's refusal, answered as `Unauthorized(message, details)`. A DRF
    exception because DRF's request handles only its own from an authentication class."""

    def __init__(self, message: str, details: dict[str, Any]):
        super().__init__(message)
        self.details = details


def api_error(exc: Exception, *, where: str = "view") -> ApiError:
    """The error `exc` stands for. Anything unexpected is logged with its traceback, which
    stays here: the client gets INTERNAL_ERROR and nothing else."""
    error = _api_error(exc)
    if error.code is ErrorCode.INTERNAL_ERROR:
        logger.error("Unhandled error in %s", where, exc_info=exc)
    return error


def _api_error(exc: Exception) -> ApiError:
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, DatabaseError) and isinstance(exc.__cause__, PoolTimeout):
        logger.warning("no pooled database connection came free: %s", exc)
        return PoolExhausted()
    if isinstance(exc, drf.ValidationError):
        details = _field_details(exc.detail)
        return ValidationFailed(_validation_message(details), details)
    if isinstance(exc, drf.ParseError):
        return ValidationFailed(f"Malformed request body: {exc.detail}",
                                {"body": [str(exc.detail)]})
    if isinstance(exc, drf.UnsupportedMediaType):
        return ValidationFailed(str(exc.detail),
                                {"content_type": ["Send the body as application/json."]})
    if isinstance(exc, CredentialsRefused):
        return Unauthorized(str(exc.detail), exc.details)
    if isinstance(exc, (drf.NotAuthenticated, drf.AuthenticationFailed)):
        return Unauthorized(_plain(exc.detail))
    if isinstance(exc, (drf.PermissionDenied, PermissionDenied)):
        return Forbidden(_plain(exc.detail) if isinstance(exc, drf.APIException) else str(exc))
    if isinstance(exc, (drf.NotFound, Http404)):
        return NotFound()
    if isinstance(exc, drf.MethodNotAllowed):
        return MethodNotAllowed(_plain(exc.detail))
    if isinstance(exc, drf.Throttled):
        return RateLimited(exc.wait or 1)
    if isinstance(exc, drf.NotAcceptable):
        return ValidationFailed(_plain(exc.detail),
                                {"accept": ["Only application/json responses are available."]})
    return ApiError()


def error_for_status(status: int) -> ApiError:
    """The error a bare HTTP status stands for: Django's own 404 and 405, other middleware's."""
    error_class = _BY_STATUS.get(status) or (ValidationFailed if status < 500 else ApiError)
    return error_class()


_BY_STATUS = {error_class.code.status: error_class for error_class in (
    ValidationFailed, Unauthorized, Forbidden, NoSuchEndpoint, MethodNotAllowed, Conflict,
    RateLimited, ApiError)}


def envelope_exception_handler(exc: Exception, context: dict) -> Response:
    """DRF's EXCEPTION_HANDLER. DRF itself adds `Allow` (the view's methods) to its responses."""
    view = context.get("view")
    error = api_error(exc, where=type(view).__name__ if view else "view")
    return Response(envelope.error_body(error), status=error.status,
                    headers=envelope.error_headers(error))


def _field_details(detail: Any) -> dict[str, list[str]]:
    """DRF's nested ErrorDetail structures flattened to {field: [messages]}."""
    if isinstance(detail, dict):
        return {str(field): _messages(value) for field, value in detail.items()}
    return {"non_field_errors": _messages(detail)}


def _messages(value: Any) -> list[str]:
    if isinstance(value, list):
        flat: list[str] = []
        for item in value:
            if isinstance(item, dict):
                flat.extend(_prefixed(item))
            else:
                flat.extend(_messages(item))
        return flat
    if isinstance(value, dict):
        return _prefixed(value)
    return [str(value)]


def _prefixed(detail: dict) -> list[str]:
    """Nested messages, each after the field it is about; an object's own message (DRF's
    `non_field_errors`, a name no client sent) after nothing."""
    return [m if k == NON_FIELD_ERRORS else f"{k}: {m}"
            for k, v in detail.items() for m in _messages(v)]


NON_FIELD_ERRORS = "non_field_errors"


def _validation_message(details: dict[str, list[str]]) -> str:
    fields = [f for f in details if f != "non_field_errors"]
    if fields:
        return "Invalid input: " + ", ".join(fields) + "."
    return details.get("non_field_errors", ["Invalid input."])[0]


def _plain(detail: Any) -> str:
    if isinstance(detail, dict):
        return "; ".join(str(v) for v in detail.values())
    return str(detail)
