"""The base of the SDK endpoints (/installs, /events): API key auth, per-key rate limit, JSON
(or beacon text/plain JSON) bodies of bounded size, unknown fields ignored for forward
compatibility with newer SDKs.

POSTs take a lean path: `dispatch` parses the body, authenticates and rate-limits with the same
functions DRF's classes use, calls the view's own `post` with a small request object, and wraps
its answer (or any exception, through the one `api_error`) in the envelope. DRF's request and
response machinery costs about half a millisecond per call, a sixth of an install's budget;
the serializers, the envelope, the error codes and the OpenAPI schema stay exactly the same.
"""

from __future__ import annotations

from django.conf import settings
from rest_framework import exceptions as drf
from rest_framework.views import APIView

from apps_registry.authentication import ApiKeyAuthentication, sdk_client_for_key
from attribution_site.api import envelope, parsers
from attribution_site.api.exceptions import RateLimited, ValidationFailed, api_error
from attribution_site.api.throttling import fixed_window_hit

JSON_TYPES = ("application/json", "text/plain")


class SdkRequest:
    """What an SDK handler reads of a request: parsed body, authenticated client, META."""

    def __init__(self, request, data, client):
        self._request = request
        self.data = data
        self.user = client
        self.META = request.META


class SdkView(APIView):
    authentication_classes = [ApiKeyAuthentication]  # for the schema and non-POST methods
    parser_classes = [parsers.JSONParser, parsers.PlainTextJSONParser]
    api_key_in_body = False

    def dispatch(self, request, *args, **kwargs):
        if request.method != "POST":
            return super().dispatch(request, *args, **kwargs)
        try:
            enforce_body_limit(request)
            client = None if self.api_key_in_body else _client(request, None)
            body = _json_body(request)
            if client is None:
                client = _client(request, body)
            wait = fixed_window_hit(f"key:{client.key_id}", limit=client.rate_limit)
            if wait is not None:
                raise RateLimited(wait)
            answer = self.post(SdkRequest(request, body, client), *args, **kwargs)
            return envelope.success_response(answer.data, status=answer.status_code)
        except Exception as exc:  # noqa: BLE001 - every failure answers in the envelope
            return envelope.error_response(api_error(exc, where=type(self).__name__),
                                           authenticate="X-API-Key")


def _client(request, body):
    presented = request.META.get("HTTP_X_API_KEY")
    if not presented and isinstance(body, dict):
        presented = body.get("_api_key")
    return sdk_client_for_key(presented)


def _json_body(request):
    content_type = request.META.get("CONTENT_TYPE", "")
    raw = request.body
    if not raw:
        return {}
    if content_type.split(";", 1)[0].strip().lower() not in JSON_TYPES:
        raise drf.UnsupportedMediaType(content_type)
    return parsers.loads(raw)


def enforce_body_limit(request) -> None:
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > settings.SDK_MAX_BODY_BYTES:
        raise ValidationFailed("Request body too large.", {"body": [
            f"At most {settings.SDK_MAX_BODY_BYTES} bytes."]})


def json_object(data) -> dict:
    if not isinstance(data, dict):
        raise ValidationFailed("The body must be a JSON object.", {
            "non_field_errors": ["The body must be a JSON object."]})
    return data
