"""The base of the SDK endpoints (/installs, /events): API key auth, per-key rate limit, JSON
(or beacon text/plain JSON) bodies of bounded size, unknown fields ignored for forward
compatibility with newer SDKs.
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.parsers import JSONParser
from rest_framework.views import APIView

from apps_registry.authentication import ApiKeyAuthentication
from attribution_site.api.exceptions import ValidationFailed
from attribution_site.api.parsers import PlainTextJSONParser
from attribution_site.api.throttling import SdkKeyThrottle


class SdkView(APIView):
    authentication_classes = [ApiKeyAuthentication]
    throttle_classes = [SdkKeyThrottle]
    parser_classes = [JSONParser, PlainTextJSONParser]

    def initial(self, request, *args, **kwargs):
        enforce_body_limit(request)
        super().initial(request, *args, **kwargs)


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
