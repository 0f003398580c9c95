"""POST /api/v1/web/visits, /events, /identify, /consent (web key; docs/web-sdk-wire.md).
Thin: the pipeline is web/endpoint.py's, the checks web/bodies.py's, the writes
web/services.py's."""

from __future__ import annotations

import time

from django.utils import timezone
from rest_framework import status
from rest_framework.response import Response

from attribution_site.api.exceptions import ValidationFailed
from links.serializers import own_origin
from web import auto_banner, bodies, services
from web.endpoint import WebEndpoint, WebRequest


def _checked(parse, *args, **kwargs):
    try:
        return parse(*args, **kwargs)
    except bodies.BodyError as bad:
        raise ValidationFailed(f"Invalid input: {', '.join(bad.errors)}.", bad.errors) from None


def _now_ms() -> int:
    return int(time.time() * 1000)


class WebVisitView(WebEndpoint):
    def post(self, request: WebRequest):
        body = _checked(bodies.visit_body, request.data, now_ms=_now_ms())
        answer = services.visit_record(app_id=request.client.app_id, body=body, ip=request.ip,
                                       user_agent=request.user_agent, now=timezone.now())
        data = answer.as_data()
        banner = auto_banner.auto_banner(web_app_id=request.client.app_id,
                                         user_agent=request.user_agent,
                                         own_origin=own_origin(self.request))
        if banner is not None:  # the wire's optional `banner`: shown without asking /banner
            data["banner"] = banner
        return Response(data, status=status.HTTP_201_CREATED if answer.is_new
                        else status.HTTP_200_OK)


class WebEventView(WebEndpoint):
    def post(self, request: WebRequest):
        body = _checked(bodies.event_body, request.data, now_ms=_now_ms())
        stored = services.event_record(app_id=request.client.app_id, body=body,
                                       now=timezone.now())
        return Response({"accepted": True, "duplicate": not stored})


class WebIdentifyView(WebEndpoint):
    def post(self, request: WebRequest):
        body = _checked(bodies.identify_body, request.data)
        services.identify_record(app_id=request.client.app_id, body=body, now=timezone.now())
        return Response({"webId": body.web_id})


class WebConsentView(WebEndpoint):
    def post(self, request: WebRequest):
        body = _checked(bodies.consent_body, request.data, now_ms=_now_ms())
        services.consent_record(app_id=request.client.app_id, body=body, now=timezone.now())
        return Response({"webId": body.web_id})
