"""The SDK endpoints' request pipeline (spec: Authentication rules 2-5; /installs, /events):
API key auth, per-key rate limit, JSON (or beacon text/plain JSON) bodies of bounded size,
unknown fields ignored for forward compatibility with newer SDKs.

A POST takes the lean path in `SdkView.dispatch`, which is the whole hot path after
HotPathMiddleware (attribution_site/api/hot_paths.py): the body limit, the key check
(`sdk_client_for_request`, the one DRF's `ApiKeyAuthentication` also calls), the body, the
key's rate limit, the view's own `post` with a small request object, and the envelope around
its answer or any exception. DRF's request and response machinery would cost about half a
millisecond per call, a sixth of an install's budget; the serializers, the envelope, the error
codes and the OpenAPI schema stay exactly the same. Other methods, and a POST to a view that
takes none, go through DRF as on any endpoint. `WithSdkPost` lets a dashboard view share its
URL with an SDK POST (/installs).
"""

from __future__ import annotations

import functools

from django.conf import settings
from rest_framework import exceptions as drf
from rest_framework.views import APIView

from apps_registry import request_signing
from apps_registry.authentication import ApiKeyAuthentication, sdk_client_for_request
from attribution_site.api import envelope, parsers
from attribution_site.api.exceptions import RateLimited, ValidationFailed, api_error
from attribution_site.api.throttling import fixed_window_hit

JSON_TYPES = ("application/json", "text/plain")


class SdkRequest:
    """What an SDK handler reads of a request: parsed body, authenticated client, META, and
    what is wrong with its signature when the app asks for signed requests (None: nothing)."""

    def __init__(self, request, data, client, signature_problem: str | None = None):
        self.data = data
        self.user = client
        self.META = request.META
        self.signature_problem = signature_problem


# No class docstring: drf-spectacular would make it the description of every SDK operation
# that has none of its own.
class SdkView(APIView):
    authentication_classes = [ApiKeyAuthentication]  # DRF's path: other methods, the schema
    parser_classes = [parsers.JSONParser, parsers.PlainTextJSONParser]
    api_key_in_body = False

    def dispatch(self, request, *args, **kwargs):
        # A view without a POST handler (an SDK GET) leaves a POST to DRF as well, which
        # refuses it as for any method the view lacks: 405, its `Allow`, the envelope.
        if request.method != "POST" or not hasattr(self, "post"):
            return super().dispatch(request, *args, **kwargs)
        try:
            enforce_body_limit(request)
            if self.api_key_in_body:
                body = _json_body(request)
                client = sdk_client_for_request(request.META, body=lambda: body)
            else:  # a bad key is refused before the body is read
                client = sdk_client_for_request(request.META)
                body = _json_body(request)
            wait = fixed_window_hit(f"key:{client.key_id}", limit=client.rate_limit)
            if wait is not None:
                raise RateLimited(wait)
            signing = request_signing.current()
            problem = signing.check(client, request.META, request.body) if signing else None
            answer = self.post(SdkRequest(request, body, client, problem), *args, **kwargs)
            return envelope.success_response(answer.data, status=answer.status_code)
        except Exception as exc:  # noqa: BLE001 - every failure answers in the envelope
            return envelope.error_response(api_error(exc, where=type(self).__name__),
                                           authenticate="X-API-Key")


class WithSdkPost:
    """For a dashboard view whose URL also takes an SDK's POST, served by `sdk_view`.

    The URLconf names one view per path and drf-spectacular documents a path from one class, so
    the dashboard view stands for the URL: `as_view()` sends POSTs to `sdk_view` (and tells
    HotPathMiddleware to call that one directly), and what DRF and the schema read of the URL
    comes from `sdk_view` for its POST: the method in `Allow`, the parsers OPTIONS lists, the
    POST's operation and its API-key security.
    """

    sdk_view: type[SdkView]

    @classmethod
    def as_view(cls, **initkwargs):
        dashboard = super().as_view(**initkwargs)
        views_by_method = {"POST": cls.sdk_view.as_view()}

        @functools.wraps(dashboard)  # keeps `cls`, which drf-spectacular documents
        def view(request, *args, **kwargs):
            return views_by_method.get(request.method, dashboard)(request, *args, **kwargs)

        view.views_by_method = views_by_method
        return view

    @property
    def post(self):
        return self.sdk_view.post

    @property
    def parser_classes(self):
        return self.sdk_view.parser_classes

    def get_authenticators(self):
        if getattr(self.request, "method", None) == "POST":  # only the schema asks
            return self.sdk_view().get_authenticators()
        return super().get_authenticators()


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
