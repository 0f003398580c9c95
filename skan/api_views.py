"""Ad network names per app (docs/apple.md, "Ad network names"), JWT and organization-scoped:
`GET /apps/{id}/ad-networks` lists every name the app's reports use (the shared table's and
the app's own, which win), `PUT /apps/{id}/ad-networks/{network_id}` sets the app's own name,
`DELETE` goes back to the shared one. `GET/PUT /apps/{id}/skan/campaign-mappings`: which
network campaign each SKAN source identifier stands for (docs/apple.md, "SKAN beside spend")."""

from __future__ import annotations

import re

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from apps_registry.scoping import OrganizationScopedView
from attribution_site.api.exceptions import NotFound, ValidationFailed
from attribution_site.api.fields import StrictCharField, StrictListField, StrictSerializer
from attribution_site.capabilities import CONFIGURE, EDIT_MARKETING, READ
from skan import selectors, services
from skan.models import AdNetwork

# Apple's SKAdNetwork ids ("cstr6suwn9.skadnetwork") and AdAttributionKit's (reverse-DNS ids).
NETWORK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
NETWORK_ID_MESSAGE = "Must be an ad network id such as cstr6suwn9.skadnetwork."
SOURCE_IDENTIFIER = re.compile(r"[0-9]{1,4}")
MAX_MAPPINGS = 1000


class AdNetworkNameInput(StrictSerializer):
    name = StrictCharField(max_length=255)


class AdNetworkNameOutput(serializers.Serializer):
    network_id = serializers.CharField()
    name = serializers.CharField()
    source = serializers.ChoiceField(choices=["app", "shared"], help_text=(
        "app: this app's own name; shared: the service's table (seeded with the common "
        "networks' published ids)."))


class CampaignMappingField(StrictSerializer):
    media_source = StrictCharField(max_length=255, help_text=(
        "The network as the SKAN report names it (meta, google, tiktok, ...)."))
    source_identifier = StrictCharField(max_length=4, help_text=(
        "As Apple's postbacks carry it: the 2-4 digit source identifier (SKAdNetwork 4 and "
        "AdAttributionKit) or the campaign id 0-99 (earlier versions), digits as sent."))
    campaign_id = StrictCharField(max_length=255, help_text=(
        "The network's own campaign id, as its spend rows carry it."))

    def validate_source_identifier(self, value: str) -> str:
        if not SOURCE_IDENTIFIER.fullmatch(value):
            raise serializers.ValidationError("Must be 1 to 4 digits, as Apple sends it.")
        return value


class CampaignMappingsInput(StrictSerializer):
    mappings = StrictListField(child=CampaignMappingField(), max_length=MAX_MAPPINGS)

    def validate_mappings(self, mappings: list[dict]) -> list[services.Mapping]:
        parsed = [services.Mapping(media_source=m["media_source"].strip(),
                                   source_identifier=m["source_identifier"],
                                   campaign_id=m["campaign_id"].strip()) for m in mappings]
        seen, twice = set(), []
        for index, m in enumerate(parsed):
            key = (m.media_source, m.source_identifier)
            if key in seen:
                twice.append(f"Item {index}: {m.media_source} {m.source_identifier} is mapped "
                             "twice; a source identifier stands for one campaign.")
            seen.add(key)
        if twice:
            raise serializers.ValidationError(twice)
        return parsed


CAMPAIGN_MAPPINGS = inline_serializer("SkanCampaignMappings", {
    "mappings": CampaignMappingField(many=True)})


def _mappings_body(rows) -> dict:
    return {"mappings": [{"media_source": r.media_source,
                          "source_identifier": r.source_identifier,
                          "campaign_id": r.campaign_id} for r in rows]}


class CampaignMappingsView(OrganizationScopedView):
    capability = {"GET": READ, "PUT": EDIT_MARKETING}  # spend's companion: who uploads cost

    @extend_schema(operation_id="skan_campaign_mappings_list",
                   responses={200: CAMPAIGN_MAPPINGS})
    def get(self, request, app_id):
        app = self.get_app(app_id)
        return Response(_mappings_body(selectors.campaign_mappings(app_id=app.id)))

    @extend_schema(operation_id="skan_campaign_mappings_replace",
                   request=CampaignMappingsInput, responses={200: CAMPAIGN_MAPPINGS})
    def put(self, request, app_id):
        app = self.get_app(app_id)
        payload = CampaignMappingsInput(data=request.data)
        payload.is_valid(raise_exception=True)
        services.campaign_mappings_replace(app_id=app.id,
                                           mappings=payload.validated_data["mappings"])
        return Response(_mappings_body(selectors.campaign_mappings(app_id=app.id)))


def _network_id(value: str) -> str:
    if not NETWORK_ID.fullmatch(value):
        raise ValidationFailed("Invalid input: network_id.", {"network_id": [NETWORK_ID_MESSAGE]})
    return value.lower()


class AdNetworkListView(OrganizationScopedView):
    capability = READ

    @extend_schema(operation_id="ad_networks_list", responses={200: inline_serializer(
        "AdNetworkNameList", {"ad_networks": AdNetworkNameOutput(many=True)})})
    def get(self, request, app_id):
        app = self.get_app(app_id)
        names = {network_id: {"network_id": network_id, "name": name, "source": "shared"}
                 for network_id, name in AdNetwork.objects.values_list("network_id", "name")}
        for own in selectors.app_ad_network_names(app_id=app.id):
            names[own.network_id] = {"network_id": own.network_id, "name": own.name,
                                     "source": "app"}
        return Response({"ad_networks": sorted(names.values(),
                                               key=lambda row: (row["name"], row["network_id"]))})


class AdNetworkDetailView(OrganizationScopedView):
    capability = CONFIGURE

    @extend_schema(operation_id="ad_networks_set", request=AdNetworkNameInput, responses={
        200: inline_serializer("AdNetworkNameSet", {"ad_network": AdNetworkNameOutput()})})
    def put(self, request, app_id, network_id):
        app = self.get_app(app_id)
        network_id = _network_id(network_id)
        payload = AdNetworkNameInput(data=request.data)
        payload.is_valid(raise_exception=True)
        row = services.ad_network_name_set(app=app, network_id=network_id,
                                           name=payload.validated_data["name"])
        return Response({"ad_network": {"network_id": row.network_id, "name": row.name,
                                        "source": "app"}})

    @extend_schema(operation_id="ad_networks_clear", responses={
        200: inline_serializer("AdNetworkNameCleared", {"success": serializers.BooleanField()})})
    def delete(self, request, app_id, network_id):
        app = self.get_app(app_id)
        if not services.ad_network_name_clear(app=app, network_id=_network_id(network_id)):
            raise NotFound("This app has no name of its own for that ad network.")
        return Response({"success": True})
