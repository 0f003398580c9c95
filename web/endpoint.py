"""The web endpoints' request pipeline (docs/web-sdk-wire.md, "Every call"; docs/web.md).

A view of /api/v1/web/* subclasses `WebEndpoint` and defines `post(self, request)` and/or
`get(self, request)` taking a `WebRequest` and returning a DRF `Response`. `dispatch` does the
rest, for every method: a preflight for the key's origins, the per-IP flood limit, the web key
and the page's origin (web/access.py), the 64 KB body limit, the JSON body (sent as
`text/plain` by the script, so no preflight is needed), the key's rate limit, the envelope
around the answer or any exception, and the CORS header. Like the SDK endpoints' lean path
(apps_registry/sdk.py), it goes round DRF's request machinery: the checks are the same and no
error escapes as an HTML page or a bare 500.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions as drf
from rest_framework.views import APIView

from apps_registry.sdk import JSON_TYPES
from attribution_site.api import envelope, parsers
from attribution_site.api.client_ip import request_client_ip
from attribution_site.api.exceptions import (
    ApiError,
    ErrorCode,
    MethodNotAllowed,
    RateLimited,
    ValidationFailed,
    api_error,
)
from attribution_site.api.throttling import fixed_window_hit
from web.access import (
    WebAccessForbidden,
    WebClient,
    cors_allow,
    preflight_response,
    request_origin,
    web_client_for_request,
)


class PayloadTooLarge(ApiError):
    """A body over WEB_MAX_BODY_BYTES: 413, with the spec's validation code (the spec has no
    code of its own for it, as 503 has none)."""

    code = ErrorCode.VALIDATION_ERROR
    default_message = "Request body too large."

    @property
    def status(self) -> int:
        return 413


@dataclass(frozen=True)
class WebRequest:
    """What a web handler reads: the JSON object sent, the query, the checked client and the
    caller's address and User-Agent."""

    data: dict[str, Any]
    query: Any
    client: WebClient
    ip: str | None
    user_agent: str


@extend_schema(exclude=True)  # documented in docs/web.md and docs/web-sdk-wire.md
class WebEndpoint(APIView):
    """Base of every /api/v1/web/* view: see the module docstring."""

    authentication_classes: list = []
    permission_classes: list = []

    def dispatch(self, request, *args, **kwargs):
        origin = None
        try:
            self._flood_check(request)
            handler = getattr(self, request.method.lower(), None) \
                if request.method in ("GET", "POST") else None
            if request.method == "OPTIONS":
                return preflight_response(web_client_for_request(request))
            if handler is None:
                raise MethodNotAllowed(f'Method "{request.method}" not allowed.')
            client = web_client_for_request(request)
            origin = client.origin
            data = _json_object(request) if request.method == "POST" else {}
            wait = fixed_window_hit(f"key:{client.key_id}", limit=client.rate_limit)
            if wait is not None:
                raise RateLimited(wait)
            answer = handler(WebRequest(
                data=data, query=request.GET, client=client,
                ip=request_client_ip(request) or None,
                user_agent=request.META.get("HTTP_USER_AGENT", "")), *args, **kwargs)
            response = envelope.success_response(answer.data, status=answer.status_code)
        except Exception as exc:  # noqa: BLE001 - every failure answers in the envelope
            error = api_error(exc, where=type(self).__name__)
            response = envelope.error_response(error)
            if isinstance(error, MethodNotAllowed):
                response["Allow"] = self._allowed()
            if not isinstance(error, WebAccessForbidden):
                # Say why to the page (a bad field, a refused key) when its origin is the
                # key's or no key was accepted at all; a foreign origin reads nothing.
                origin = origin or _origin_if_no_key_accepted(error, request)
        return cors_allow(response, origin)

    def _allowed(self) -> str:
        return ", ".join(m for m in ("GET", "POST") if hasattr(self, m.lower())) + ", OPTIONS"

    @staticmethod
    def _flood_check(request) -> None:
        ip = request_client_ip(request) or "unknown"
        wait = fixed_window_hit(f"webip:{ip}", limit=settings.WEB_IP_RATE_LIMIT, period=60)
        if wait is not None:
            raise RateLimited(wait, "Too many requests from this address.")


def _origin_if_no_key_accepted(error: ApiError, request) -> str | None:
    """The page's origin for a refusal that tells nothing of the key: a refused key, a
    wrong method, the flood limit. None for anything after the key was accepted from another
    origin (caught earlier: WebAccessForbidden)."""
    if error.code in (ErrorCode.UNAUTHORIZED, ErrorCode.METHOD_NOT_ALLOWED,
                      ErrorCode.RATE_LIMITED):
        return request_origin(request)
    return None


def _json_object(request) -> dict[str, Any]:
    limit = settings.WEB_MAX_BODY_BYTES
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > limit:
        raise PayloadTooLarge(f"Request body too large: at most {limit} bytes.", {"body": [
            f"At most {limit} bytes."]})
    raw = request.body
    if not raw:
        raise ValidationFailed("The body must be a JSON object.", {
            "body": ["Required: a JSON object."]})
    content_type = request.META.get("CONTENT_TYPE", "")
    if content_type.split(";", 1)[0].strip().lower() not in JSON_TYPES:
        raise drf.UnsupportedMediaType(content_type)
    data = parsers.loads(raw)
    if not isinstance(data, dict):
        raise ValidationFailed("The body must be a JSON object.", {
            "body": ["Must be a JSON object."]})
    return data
