"""The banner's web endpoints (docs/web-sdk-wire.md, "GET /api/v1/web/banner", "POST
/api/v1/web/banner-events"), called by the web script with the web app's web key; the key,
the page's origin, CORS, limits and the envelope are web.endpoint.WebEndpoint's."""

from __future__ import annotations

from django.utils import timezone
from rest_framework import serializers
from rest_framework.response import Response

from attribution_site.api.exceptions import ValidationFailed
from attribution_site.api.fields import StrictCharField, StrictIntegerField, StrictSerializer
from links.serializers import own_origin
from web.endpoint import WebEndpoint
from web_to_app import banner_rules, services, serving
from web_to_app.models import BannerEventKind

UUID_MESSAGE = "Must be a UUID."


def _web_id(value) -> str:
    if not isinstance(value, str) or not value:
        raise ValidationFailed("Invalid input: web_id.", {"web_id": ["Required."]})
    if not serving.is_web_id(value):
        raise ValidationFailed("Invalid input: web_id.", {"web_id": [UUID_MESSAGE]})
    return value.lower()


class BannerView(WebEndpoint):
    def get(self, request):
        _web_id(request.query.get("web_id"))
        return Response(serving.banner_config(
            web_app_id=request.client.app_id, user_agent=request.user_agent,
            own_origin=own_origin(self.request)))


class BannerEventBody(StrictSerializer):
    web_id = StrictCharField(max_length=64)
    kind = serializers.ChoiceField(choices=BannerEventKind.values, error_messages={
        "invalid_choice": "Must be one of view, click, dismiss."})
    event_id = StrictCharField(max_length=64)
    timestamp = StrictIntegerField(min_value=0)

    def validate_web_id(self, value):
        return _web_id(value)

    def validate_event_id(self, value):
        if not serving.is_web_id(value):
            raise serializers.ValidationError(UUID_MESSAGE)
        return value.lower()


class BannerEventsView(WebEndpoint):
    def post(self, request):
        body = BannerEventBody(data=request.data)
        body.is_valid(raise_exception=True)
        event = body.validated_data
        recorded = services.banner_event_record(
            web_app_id=request.client.app_id, web_id=event["web_id"], kind=event["kind"],
            event_id=event["event_id"], occurred_at=banner_rules.event_moment(
                timestamp_ms=event["timestamp"], now=timezone.now()))
        return Response({"recorded": recorded})
