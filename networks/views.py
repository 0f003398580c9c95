"""Integrations endpoints (docs/networks.md), JWT and organization-scoped: `GET
/apps/{id}/integrations` shows what is set (never a secret), `PUT
/apps/{id}/integrations/{meta|google_ads|tiktok|apple_ads}` sets one, `DELETE` removes it: all
three for the roles that configure apps (admins and developers). A PUT's `cost` part sets the ad
spend connection ("Ad spend"); a body with only `cost` leaves the rest as it is. `POST/GET
.../{network}/cost-pulls` start a pull now and list the last ones. Another organization's app is
a 404."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.response import Response

from apps_registry.scoping import OrganizationScopedView
from attribution_site.api.exceptions import NotFound, ValidationFailed
from attribution_site.capabilities import CONFIGURE
from networks import selectors, services
from networks.models import META_VIEW_WINDOW_DEFAULT_HOURS
from networks.serializers import (
    AppleAdsIntegrationInput,
    AppleAdsIntegrationOutput,
    GoogleAdsIntegrationInput,
    GoogleAdsIntegrationOutput,
    IntegrationsOutput,
    MetaIntegrationInput,
    MetaIntegrationOutput,
    TikTokIntegrationInput,
    TikTokIntegrationOutput,
    google_ads_answer,
    meta_answer,
)
from networks.spend import selectors as spend_selectors
from networks.spend import services as spend_services
from networks.spend.serializers import CostPullOutput, cost_answer, cost_input, pull_answer

NOT_SET = OpenApiResponse(OpenApiTypes.OBJECT, description="The app has no such integration.")
REMOVED = inline_serializer("IntegrationRemoved", {"success": serializers.BooleanField()})


def _set(write, *, prefix: str = ""):
    try:
        return write()
    except (services.MissingSecret, spend_services.MissingSecret) as exc:
        name = f"{prefix}{exc.field}"
        raise ValidationFailed(f"Invalid input: {name}.", {name: [
            "This field is required to set up the integration."]}) from None


def _cost(app_id, network: str) -> dict:
    connection = spend_selectors.connection_of(app_id=app_id, network=network)
    last = spend_selectors.last_pull(connection=connection) if connection else None
    return cost_answer(network, connection, last)


def _cost_set(app_id, network: str, value) -> dict:
    """Check and store a PUT's `cost` part; its answer."""
    clean = cost_input(network, value)
    _set(lambda: spend_services.connection_set(app_id=app_id, network=network, **clean),
         prefix="cost.")
    return _cost(app_id, network)


def _split(data) -> tuple[dict, object]:
    """The body without its `cost` part, and the part (_NO_COST when left out)."""
    body = dict(data) if isinstance(data, dict) else data
    cost = body.pop("cost", _NO_COST) if isinstance(body, dict) else _NO_COST
    return body, cost


_NO_COST = object()


class IntegrationsView(OrganizationScopedView):
    capability = CONFIGURE

    @extend_schema(operation_id="integrations_list", responses={200: inline_serializer(
        "IntegrationList", {"integrations": IntegrationsOutput()})})
    def get(self, request, app_id):
        app = self.get_app(app_id)
        meta, google = selectors.configs_of(app_id=app.id)
        return Response({"integrations": {
            "meta": {**meta_answer(meta), "cost": _cost(app.id, "meta")},
            "google_ads": {**google_ads_answer(google), "cost": _cost(app.id, "google_ads")},
            "tiktok": {"cost": _cost(app.id, "tiktok")},
            "apple_ads": {"cost": _cost(app.id, "apple_ads")}}})


class _IntegrationAdminView(OrganizationScopedView):
    """Setting or removing an integration hands the platform the app's data: the roles that
    configure apps only."""

    kind = ""
    capability = CONFIGURE

    def _admin_app(self, app_id):
        return self.get_app(app_id)

    def _remove(self, app_id) -> Response:
        """The integration and its cost part go together."""
        app = self._admin_app(app_id)
        removed = spend_services.connection_delete(app_id=app.id, network=self.kind)
        if self.kind in services.KINDS:
            removed = services.integration_delete(app_id=app.id, kind=self.kind) or removed
        if not removed:
            raise NotFound("This app has no such integration.")
        return Response({"success": True})


class MetaIntegrationView(_IntegrationAdminView):
    kind = services.META

    @extend_schema(operation_id="integrations_meta_set", request=MetaIntegrationInput,
                   responses={200: inline_serializer("MetaIntegrationSet",
                                                     {"meta": MetaIntegrationOutput()})})
    def put(self, request, app_id):
        app = self._admin_app(app_id)
        body, cost = _split(request.data)
        if cost is not _NO_COST and not body:  # only the cost part
            meta, _ = selectors.configs_of(app_id=app.id)
            return Response({"meta": {**meta_answer(meta),
                                      "cost": _cost_set(app.id, self.kind, cost)}})
        payload = MetaIntegrationInput(data=body)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        if cost is not _NO_COST:
            cost_input(self.kind, cost)  # checked before anything is written
        config = _set(lambda: services.meta_integration_set(
            app_id=app.id, meta_app_id=data["meta_app_id"],
            decryption_key=data.get("install_referrer_decryption_key"),
            access_token=data.get("access_token"),
            remove_access_token="access_token" in data and data["access_token"] is None,
            event_mapping=data.get("event_mapping"),
            view_window_hours=data.get("view_window_hours", META_VIEW_WINDOW_DEFAULT_HOURS)))
        answer = (_cost_set(app.id, self.kind, cost) if cost is not _NO_COST
                  else _cost(app.id, self.kind))
        return Response({"meta": {**meta_answer(config), "cost": answer}})

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
        body, cost = _split(request.data)
        if cost is not _NO_COST and not body:  # only the cost part
            _, google = selectors.configs_of(app_id=app.id)
            return Response({"google_ads": {**google_ads_answer(google),
                                            "cost": _cost_set(app.id, self.kind, cost)}})
        payload = GoogleAdsIntegrationInput(data=body)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        if cost is not _NO_COST:
            cost_input(self.kind, cost)  # checked before anything is written
        config = _set(lambda: services.google_ads_integration_set(
            app_id=app.id, link_id=data.get("link_id"), event_mapping=data.get("event_mapping")))
        answer = (_cost_set(app.id, self.kind, cost) if cost is not _NO_COST
                  else _cost(app.id, self.kind))
        return Response({"google_ads": {**google_ads_answer(config), "cost": answer}})

    @extend_schema(operation_id="integrations_google_ads_remove",
                   responses={200: REMOVED, 404: NOT_SET})
    def delete(self, request, app_id):
        return self._remove(app_id)


class _CostOnlyIntegrationView(_IntegrationAdminView):
    """TikTok and Apple Ads: an integration that is its cost part (`{"cost": {...}}`)."""

    def put(self, request, app_id):
        app = self._admin_app(app_id)
        body, cost = _split(request.data)
        if cost is _NO_COST or body:
            raise ValidationFailed("Invalid input: cost.", {
                "cost": ["The body is {\"cost\": {...}}: this integration is its cost part."]})
        return Response({self.kind: {"cost": _cost_set(app.id, self.kind, cost)}})

    def delete(self, request, app_id):
        return self._remove(app_id)


def _cost_only_schema(kind: str, request, output):
    name = "".join(part.title() for part in kind.split("_"))
    return extend_schema_view(
        put=extend_schema(operation_id=f"integrations_{kind}_set", request=request,
                          responses={200: inline_serializer(f"{name}IntegrationSet",
                                                            {kind: output()})}),
        delete=extend_schema(operation_id=f"integrations_{kind}_remove",
                             responses={200: REMOVED, 404: NOT_SET}))


@_cost_only_schema("tiktok", TikTokIntegrationInput, TikTokIntegrationOutput)
class TikTokIntegrationView(_CostOnlyIntegrationView):
    kind = "tiktok"


@_cost_only_schema("apple_ads", AppleAdsIntegrationInput, AppleAdsIntegrationOutput)
class AppleAdsIntegrationView(_CostOnlyIntegrationView):
    kind = "apple_ads"


class CostPullsView(OrganizationScopedView):
    """`POST`: start a pull of the connection now (202 with its id; the open one when a pull
    is already waiting or running). `GET`: the last pulls, newest first."""

    capability = CONFIGURE  # as the integration it belongs to: its errors quote the network

    def _connection(self, app_id, network):
        app = self.get_app(app_id)
        connection = spend_selectors.connection_of(app_id=app.id, network=network)
        if connection is None:
            raise NotFound("This app has no cost connection with that network.")
        return connection

    @extend_schema(operation_id="integrations_cost_pulls_list",
                   responses={200: inline_serializer("CostPullList", {
                       "pulls": CostPullOutput(many=True)}), 404: NOT_SET})
    def get(self, request, app_id, network):
        connection = self._connection(app_id, network)
        return Response({"pulls": [pull_answer(pull) for pull in
                                   spend_selectors.pulls_of(connection=connection)]})

    @extend_schema(operation_id="integrations_cost_pulls_start", request=None,
                   responses={202: inline_serializer("CostPullStarted", {
                       "pull": CostPullOutput()}), 404: NOT_SET})
    def post(self, request, app_id, network):
        connection = self._connection(app_id, network)
        pull, _ = spend_services.pull_start(connection=connection,
                                            trigger=spend_services.REQUEST)
        pull.refresh_from_db()  # in-process runs (no broker) have finished it already
        return Response({"pull": pull_answer(pull)}, status=202)
