"""Web keys at the door (docs/web.md, "Web keys"; spec: Authentication): which key a browser's
call names, whether its page's origin may use it, and the CORS headers of the answer.

The key travels in the URL (`?key=`), so that a preflight, which carries no body and no
custom header, can be answered for that key's origins. A web key is accepted only from one of
its `allowed_origins`; a server key, or a web key on any other endpoint, is refused
(apps_registry.authentication refuses the other way round). CORS answers exactly the page's
origin, never `*` and never with credentials: the script sends none.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.http import HttpResponse

from apps_registry import keys
from apps_registry.authentication import key_record_checked
from attribution_site.api.exceptions import Forbidden, Unauthorized

PREFLIGHT_MAX_AGE = 86400
ALLOWED_METHODS = "GET, POST, OPTIONS"


@dataclass(frozen=True)
class WebClient:
    """The web key a call came with, checked against the page's origin."""

    key_id: str
    app_id: uuid.UUID
    origin: str
    rate_limit: int


class WebKeyRefused(Unauthorized):
    """The key itself is refused (missing, unknown, revoked, expired). Said to any origin: the
    page's developer needs the reason in the console, and it tells nothing of the key's
    origins."""


class WebAccessForbidden(Forbidden):
    """A valid key that may not be used here (a server key, or a web key from an origin that
    is not its own): answered without Access-Control-Allow-Origin, so the page reads nothing."""


def request_origin(request) -> str | None:
    origin = request.META.get("HTTP_ORIGIN")
    return origin if origin and origin != "null" else None


def web_client_for_request(request) -> WebClient:
    """The web client a call's `?key=` and `Origin` stand for; raises WebKeyRefused or
    WebAccessForbidden."""
    presented = request.GET.get("key")
    if not presented:
        raise WebKeyRefused("A web key is required in the URL (?key=).", {"key": [
            "Required."]})
    record = _record(presented)
    if record.kind != keys.KIND_WEB:
        raise WebAccessForbidden(
            "A server key is secret and cannot be used from a browser; create a web key.",
            {"key": ["Not a web key."]})
    origin = request_origin(request)
    if not keys.origin_allowed(origin, record.allowed_origins):
        raise WebAccessForbidden(
            f"The origin {origin or '(none)'} is not one of this web key's allowed origins.",
            {"origin": ["Not allowed for this key."]})
    return WebClient(key_id=record.key_id, app_id=record.app_id, origin=origin,
                     rate_limit=record.rate_limit)


def _record(presented: str):
    try:
        return key_record_checked(presented)
    except Unauthorized as refused:
        raise WebKeyRefused(refused.message, {"key": [refused.message]}) from None


def cors_allow(response: HttpResponse, origin: str | None) -> HttpResponse:
    """The answer, readable by a page of `origin` when one is given. `Vary: Origin` always:
    one URL answers differently per origin, and a cache must not mix them."""
    response["Vary"] = "Origin"
    if origin:
        response["Access-Control-Allow-Origin"] = origin
    return response


def preflight_response(client: WebClient) -> HttpResponse:
    """An OPTIONS preflight for an allowed origin: POST and GET, with Content-Type."""
    response = HttpResponse(status=204)
    response["Access-Control-Allow-Methods"] = ALLOWED_METHODS
    response["Access-Control-Allow-Headers"] = "Content-Type"
    response["Access-Control-Max-Age"] = str(PREFLIGHT_MAX_AGE)
    return cors_allow(response, client.origin)
