"""Integrations endpoints (docs/networks.md), JWT and organization-scoped: `GET
/apps/{id}/integrations` shows what is set (never a secret), `PUT
/apps/{id}/integrations/{meta|google_ads}` sets one, `DELETE` removes it: all three for the roles
that configure apps (admins and developers). Another organization's app is a 404."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from apps_registry.scoping import OrganizationScopedView
from attribution_site.api.exceptions import NotFound, ValidationFailed
from attribution_site.capabilities import CONFIGURE
from networks import selectors, services
from networks.models import META_VIEW_WINDOW_DEFAULT_HOURS
from networks.serializers import (
    GoogleAdsIntegrationInput,
    GoogleAdsIntegrationOutput,
    IntegrationsOutput,
    MetaIntegrationInput,
    MetaIntegrationOutput,
    google_ads_answer,
    meta_answer,
)

NOT_SET = OpenApiResponse(OpenApiTypes.OBJECT, description="The app has no such integration.")
REMOVED = inline_serializer("IntegrationRemoved", {"success": serializers.BooleanField()})


def _set(write):
    try:
        return write()
    except services.MissingSecret as exc:
        raise ValidationFailed(f"Invalid input: {exc.field}.", {exc.field: [
            "This field is required to set up the integration."]}) from None


class IntegrationsView(OrganizationScopedView):
    capability = CONFIGURE

    @extend_schema(operation_id="integrations_list", responses={200: inline_serializer(
        "IntegrationList", {"integrations": IntegrationsOutput()})})
    def get(self, request, app_id):
        app = self.get_app(app_id)
        meta, google = selectors.configs_of(app_id=app.id)
        return Response({"integrations": {"meta": meta_answer(meta),
                                          "google_ads": google_ads_answer(google)}})


class _IntegrationAdminView(OrganizationScopedView):
    """Setting or removing an integration hands the platform the app's data: the roles that
    configure apps only."""

    kind = ""
    capability = CONFIGURE

    def _admin_app(self, app_id):
        return self.get_app(app_id)

    def _remove(self, app_id) -> Response:
        app = self._admin_app(app_id)
        if not services.integration_delete(app_id=app.id, kind=self.kind):
            raise NotFound("This app has no such integration.")
        return Response({"success": True})


class MetaIntegrationView(_IntegrationAdminView):
    kind = services.META

    @extend_schema(operation_id="integrations_meta_set", request=MetaIntegrationInput,
                   responses={200: inline_serializer("MetaIntegrationSet",
                                                     {"meta": MetaIntegrationOutput()})})
    def put(self, request, app_id):
        app = self._admin_app(app_id)
        payload = MetaIntegrationInput(data=request.data)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        config = _set(lambda: services.meta_integration_set(
            app_id=app.id, meta_app_id=data["meta_app_id"],
            decryption_key=data.get("install_referrer_decryption_key"),
            access_token=data.get("access_token"),
            remove_access_token="access_token" in data and data["access_token"] is None,
            event_mapping=data.get("event_mapping"),
            view_window_hours=data.get("view_window_hours", META_VIEW_WINDOW_DEFAULT_HOURS)))
        return Response({"meta": meta_answer(config)})

    @extend_schema(operation_id="integrations_meta_remove",
                   responses={200: REMOVED, 404: NOT_SET})
    def delete(self, request, app_id):
        return self._remove(app_id)


class GoogleAdsIntegrationView(_IntegrationAdminView):
    kind = services.GOOGLE_ADS

    @extend_schema(operation_id="integrations_google_ads_set", request=GoogleAdsIntegrationInput,
                   responses={200: inline_serializer("GoogleAdsIntegrationSet",
                                                     {"google_ads": GoogleAdsIntegrationOutput()})})
    def put(self, request, app_id):
        app = self._admin_app(app_id)
        payload = GoogleAdsIntegrationInput(data=request.data)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        config = _set(lambda: services.google_ads_integration_set(
            app_id=app.id, link_id=data.get("link_id"), event_mapping=data.get("event_mapping")))
        return Response({"google_ads": google_ads_answer(config)})

    @extend_schema(operation_id="integrations_google_ads_remove",
                   responses={200: REMOVED, 404: NOT_SET})
    def delete(self, request, app_id):
        return self._remove(app_id)
