"""API key authentication for the SDK endpoints (spec: Authentication, rules 2-5).

`sdk_client_for_request` is the one key check, for the SDK endpoints' lean POST path
(apps_registry/sdk.py) and DRF's (`ApiKeyAuthentication`) alike: it reads `X-API-Key`, or
`_api_key` in the body on views that allow it (beacons cannot set headers). A bad, revoked or
expired key is 401. The authenticated principal is an `SdkClient` bound to the key's app;
`require_app` turns a request for another app into 403.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.utils import timezone
from rest_framework.authentication import BaseAuthentication

from apps_registry import keys, selectors, services
from attribution_site.api.exceptions import Forbidden, Unauthorized

INVALID_KEY = "Invalid API key."


@dataclass(frozen=True)
class SdkClient:
    key_id: str
    app_id: uuid.UUID
    permissions: tuple[str, ...]
    rate_limit: int

    is_authenticated = True
    pk = None

    def can_write(self) -> bool:
        return keys.permits_sdk_calls(self.permissions)


def sdk_client_for_key(full_key: str | None) -> SdkClient:
    """The client a presented key stands for; raises Unauthorized for anything else, and
    Forbidden for a web key (public, in a page: it may call only /api/v1/web/*)."""
    if not full_key or not isinstance(full_key, str):
        raise Unauthorized("An API key is required (X-API-Key header).")
    record = key_record_checked(full_key)
    if record.kind != keys.KIND_SERVER:
        raise Forbidden("A web key may call only the web endpoints (/api/v1/web/); use a "
                        "server key here.", {"key": ["This is a web key."]})
    return SdkClient(key_id=record.key_id, app_id=record.app_id,
                     permissions=record.permissions, rate_limit=record.rate_limit)


def key_record_checked(full_key: str) -> selectors.KeyRecord:
    """The record of a well-formed, known, active key of any kind (its use noted); raises
    Unauthorized otherwise. The one check behind server keys here and web keys (web/access.py)."""
    parsed = keys.key_parse(full_key.strip())
    if parsed is None:
        raise Unauthorized(INVALID_KEY)
    key_id, secret = parsed
    record = selectors.api_key_record(key_id=key_id)
    if record is None or not keys.secret_matches(secret, record.secret_hash):
        raise Unauthorized(INVALID_KEY)
    if record.revoked:
        raise Unauthorized("This API key has been revoked.")
    if record.expires_at is not None and record.expires_at <= timezone.now():
        raise Unauthorized("This API key has expired.")
    services.api_key_touch(key_id=record.key_id)
    return record


def sdk_client_for_request(meta: Mapping[str, Any], *,
                           body: Callable[[], Any] | None = None) -> SdkClient:
    """The client a request's key stands for. `body` reads the parsed body, on views that take
    the key there too; it is read only when the header is missing."""
    presented = meta.get("HTTP_X_API_KEY")
    if not presented and body is not None:
        data = body()
        presented = data.get("_api_key") if isinstance(data, dict) else None
    return sdk_client_for_key(presented)


def require_app(client: SdkClient, app_id: uuid.UUID) -> None:
    if client.app_id != app_id:
        raise Forbidden("This API key belongs to another app.", {"app_id": [
            "Does not match the API key's app."]})
    if not client.can_write():
        raise Forbidden("This API key lacks the write permission.")


class ApiKeyAuthentication(BaseAuthentication):
    """DRF's way to the key check; a view sets `api_key_in_body = True` to accept `_api_key`
    in the body."""

    def authenticate(self, request):
        in_body = getattr(request.parser_context.get("view"), "api_key_in_body", False)
        client = sdk_client_for_request(request.META,
                                        body=(lambda: request.data) if in_body else None)
        return client, None

    def authenticate_header(self, request):
        return "X-API-Key"
