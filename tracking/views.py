"""Tracking endpoints: the click redirector, install attribution, event batches, and the
install trail for dashboard users (spec: Attribution endpoints)."""

from __future__ import annotations

import logging
import time
import uuid
from datetime import UTC, datetime
from urllib.parse import parse_qsl

from django.conf import settings
from django.http import HttpResponseRedirect
from django.utils import timezone
from django.views.decorators.http import require_http_methods
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import status
from rest_framework.response import Response

from apps_registry import selectors as app_selectors
from apps_registry.authentication import require_app
from apps_registry.scoping import OrganizationScopedView
from apps_registry.sdk import SdkView, WithSdkPost, json_object
from attribution_site.api.client_ip import request_client_ip
from attribution_site.api.exceptions import NotFound, ValidationFailed
from attribution_site.api.pagination import limit_from_query
from attribution_site.capabilities import READ
from consent import selectors as consent_selectors
from consent.consent_data import public as consent_public
from tracking import redirects, selectors, services
from tracking.click_intake import click_from_request
from tracking.click_values import MAX_LENGTH, click_values
from tracking.event_batch import check_batch
from tracking.fraud_gate import play_signals
from tracking.serializers import (
    AttributionResult,
    EventBatchInput,
    EventBatchResult,
    InstallDetailOutput,
    InstallInput,
    InstallOutput,
    event_batch_input,
    install_answer,
    install_input,
    install_platform_problem,
)
from tracking.useragent import device_info
from tracking.waterfall_inputs import MetaInstallReferrer

logger = logging.getLogger(__name__)


def _uuid(value: str | None) -> uuid.UUID | None:
    try:
        return uuid.UUID(value) if value else None
    except ValueError:
        return None


def _query_params(request) -> dict[str, str]:
    """The query's parameters, the last of repeated ones (as `request.GET.get` gives them),
    decoded as Django decodes them. Not `request.GET`: its cap on the number of fields would
    turn an over-long click URL into an error page, and its bookkeeping costs a click more
    than the parsing."""
    raw = request.META.get("QUERY_STRING", "").encode("iso-8859-1", errors="replace")
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        text = raw.decode("iso-8859-1")
    return dict(parse_qsl(text, keep_blank_values=True))


@require_http_methods(["GET", "HEAD"])
def click_redirect(request):
    """Record the click (when the app is known) and redirect; never an error page."""
    params = _query_params(request)
    user_agent = request.META.get("HTTP_USER_AGENT", "")
    device = device_info(user_agent[:512])
    app_id = _uuid(params.get("app_id"))
    app = None
    click_id = None
    try:
        app = app_selectors.app_target(app_id=app_id) if app_id else None
    except Exception:  # noqa: BLE001 - the visitor is redirected whatever happened here
        logger.exception("click not recorded for app %s", app_id)
    values = click_values(media_source=params.get("pid", ""), campaign_id=params.get("c", ""),
                          adset=params.get("af_adset", ""), ad=params.get("af_ad", ""))
    if values.cut:
        logger.info("click values cut to %d characters for app %s: %s", MAX_LENGTH, app_id,
                    ", ".join(values.cut))
    if app is not None and request.method == "GET":
        click_id = click_from_request(
            request, app_id=app.id, campaign_id=values.campaign_id,
            media_source=values.media_source, adset=values.adset, ad=values.ad,
            advertising_id=params.get("advertising_id"))

    target = redirects.redirect_target(
        redirect_url=params.get("redirect_url"), device_platform=device.platform, app=app,
        defaults=settings.DEFAULT_STORE_URLS, click_id=click_id,
        media_source=values.media_source, campaign_id=values.campaign_id)
    response = HttpResponseRedirect(target)
    response["Cache-Control"] = "no-store"
    return response


click_redirect.csrf_exempt = True


class InstallReportView(SdkView):
    @extend_schema(request=InstallInput, responses={201: AttributionResult,
                                                    200: AttributionResult})
    def post(self, request):
        data = install_input(json_object(request.data))
        require_app(request.user, data["app_id"])
        _require_app_platform(data["app_id"], data["platform"])
        outcome = services.install_record(
            data=services.InstallReport(
                app_id=data["app_id"], platform=data["platform"],
                sdk_version=data["sdk_version"], device_id=data.get("device_id") or None,
                install_referrer=data.get("install_referrer") or "",
                screen_resolution=data.get("screen_resolution") or "",
                timezone=data.get("timezone") or "", language=data.get("language") or "",
                os_version=data.get("os_version") or "",
                device_model=data.get("device_model") or "",
                att_status=data.get("att_status") or "",
                attribution_token=data.get("attribution_token") or "",
                customer_user_id=data.get("customer_user_id") or None,
                meta_install_referrer=_meta_install_referrer(data.get("meta_install_referrer")),
                ip=request_client_ip(request) or None,
                user_agent=request.META.get("HTTP_USER_AGENT", ""),
                consent=data["consent"], play=play_signals(data),
                signature_problem=request.signature_problem),
            now=timezone.now())
        return Response(install_answer(outcome), status=status.HTTP_201_CREATED
                        if outcome.created else status.HTTP_200_OK)


def _require_app_platform(app_id, platform: str) -> None:
    app = app_selectors.app_target(app_id=app_id)  # this process's copy: no query per install
    problem = install_platform_problem(platform=platform, app_platform=app.platform) \
        if app is not None else None
    if problem is not None:
        raise ValidationFailed(
            f"The install says platform {platform}, but this app's platform is {app.platform}.",
            {"platform": [problem]})


def _meta_install_referrer(value: dict | None) -> MetaInstallReferrer | None:
    if value is None:
        return None
    return MetaInstallReferrer(
        install_referrer=value["install_referrer"], is_ct=value["is_ct"],
        actual_timestamp=datetime.fromtimestamp(value["actual_timestamp"], tz=UTC))


class InstallsView(WithSdkPost, OrganizationScopedView):
    """POST: an SDK reports an install (API key). GET: dashboard users read installs (JWT)."""

    capability = {"GET": READ}  # POST: an SDK with its app key

    sdk_view = InstallReportView

    @extend_schema(
        operation_id="installs_list",
        parameters=[OpenApiParameter("app_id", str, required=True),
                    OpenApiParameter("device_id", str),
                    OpenApiParameter("limit", int, description="default 50, at most 500")],
        responses={200: inline_serializer("InstallList",
                                          {"installs": InstallOutput(many=True)})})
    def get(self, request):
        app = self.get_app_from_query("app_id")
        limit = limit_from_query(request.query_params)
        installs = selectors.installs_for_app(app_id=app.id,
                                              device_id=request.query_params.get("device_id"))
        return Response({"installs": InstallOutput(installs[:limit], many=True).data})


class InstallDetailView(OrganizationScopedView):
    capability = READ

    @extend_schema(responses={200: inline_serializer("InstallDetail",
                                                     {"install": InstallDetailOutput()})})
    def get(self, request, install_id):
        install = selectors.install_for_organization(organization_id=self.organization_id,
                                                     install_id=install_id)
        if install is None:
            raise NotFound("Install not found.")
        install.consent = consent_public(consent_selectors.consent_of(
            app_id=install.app_id, install_id=install.id, device_id=install.device_id))
        journey = selectors.web_journey_of(install)
        if journey is not None:
            install.web = journey
        return Response({"install": InstallDetailOutput(install).data})


class EventsView(SdkView):
    api_key_in_body = True

    @extend_schema(request=EventBatchInput, responses={200: EventBatchResult})
    def post(self, request):
        data = event_batch_input(json_object(request.data))
        require_app(request.user, data["app_id"])
        checked = check_batch(data["events"], now_ms=int(time.time() * 1000))
        outcome = services.events_record(app_id=data["app_id"],
                                         device_id=data.get("device_id") or None,
                                         events=checked.events, received_at=timezone.now())
        return Response({"accepted": outcome.accepted, "rejected": checked.rejected,
                         "warnings": checked.warnings})
