"""POST /api/v1/deeplinks/resolve (docs/links.md, "Direct deep links: resolve"): an app opened
through a universal link or app link sends the URL it was opened with and gets the link's deep link.

The SDK pipeline (apps_registry/sdk.py) authenticates it like /installs: an API key with the
write permission, whose app is the body's `app_id`. A URL that names no live link of that app
(unknown code, another app's link, inactive, expired, not a link URL at all) is a 404 in the
envelope, and nothing is recorded.
"""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from apps_registry.authentication import require_app
from apps_registry.sdk import SdkView, json_object
from attribution_site.api.exceptions import NotFound
from attribution_site.api.fields import HttpUrlField, StrictCharField, StrictUUIDField
from links import deep_links
from tracking.serializers import DeepLinkResult


class DeepLinkResolveInput(serializers.Serializer):
    app_id = StrictUUIDField()
    url = HttpUrlField(max_length=2048, help_text=(
        "The URL the app was opened with: https://{link domain}/{code} or "
        "https://{service host}/l/{code}, with any query."))
    device_id = StrictCharField(required=False, allow_null=True, allow_blank=True,
                                max_length=64, help_text="IDFA or GAID, as on /installs.")


class DeepLinkResolveView(SdkView):
    @extend_schema(
        operation_id="deeplinks_resolve", request=DeepLinkResolveInput,
        responses={
            200: inline_serializer("DeepLinkResolved", {"deepLink": DeepLinkResult()}),
            # Error bodies: the schema hook puts the envelope here (attribution_site/api).
            403: OpenApiResponse(OpenApiTypes.OBJECT, description="app_id is not the key's "
                                 "app, or the key lacks the write permission"),
            404: OpenApiResponse(OpenApiTypes.OBJECT, description="The URL names no live "
                                 "link of this app")},
        description="Resolve the URL an app was opened with (universal link, app link) to its "
                    "link's deep link, and count the open as a re-engagement touch of the "
                    "link. 404 when the URL names no live link of the key's app.")
    def post(self, request):
        payload = DeepLinkResolveInput(data=json_object(request.data))
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        require_app(request.user, data["app_id"])
        opened = deep_links.deep_link_open_record(
            app_id=data["app_id"], url=data["url"], device_id=data.get("device_id") or None,
            now=timezone.now())
        if opened is None:
            raise NotFound("No live link of this app at that URL.", {"url": [
                "Names no active, unexpired link of this app."]})
        return Response({"deepLink": opened.deep_link})
