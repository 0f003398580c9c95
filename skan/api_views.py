"""Ad network names per app (docs/apple.md, "Ad network names"), JWT and organization-scoped:
`GET /apps/{id}/ad-networks` lists every name the app's reports use (the shared table's and
the app's own, which win), `PUT /apps/{id}/ad-networks/{network_id}` sets the app's own name,
`DELETE` goes back to the shared one."""

from __future__ import annotations

import re

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from apps_registry.scoping import OrganizationScopedView
from attribution_site.api.exceptions import NotFound, ValidationFailed
from attribution_site.api.fields import StrictCharField, StrictSerializer
from attribution_site.capabilities import CONFIGURE, READ
from skan import selectors, services
from skan.models import AdNetwork

# Apple's SKAdNetwork ids ("cstr6suwn9.skadnetwork") and AdAttributionKit's (reverse-DNS ids).
NETWORK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
NETWORK_ID_MESSAGE = "Must be an ad network id such as cstr6suwn9.skadnetwork."


class AdNetworkNameInput(StrictSerializer):
    name = StrictCharField(max_length=255)


class AdNetworkNameOutput(serializers.Serializer):
    network_id = serializers.CharField()
    name = serializers.CharField()
    source = serializers.ChoiceField(choices=["app", "shared"], help_text=(
        "app: this app's own name; shared: the service's table (seeded with the common "
        "networks' published ids)."))


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
