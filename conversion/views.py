"""Conversion-value endpoints and the SKAdNetwork report (docs/apple.md, "Conversion-value
schemas", "The SKAdNetwork report").

Dashboard (JWT, the caller's organization's apps only; another's app is a 404):
`GET/POST /apps/{id}/conversion-schemas` lists the versions and saves a new one (it becomes the
active one), `GET /apps/{id}/conversion-schemas/{version}` reads one, and
`GET /analytics/skan` is the report, with the analytics endpoints' parameters and rules.
SDK (API key, with the rules of /events: the key's own app, write permission):
`GET /apps/{id}/conversion-schema` gives the active schema compactly for the device to apply,
and `POST /conversion-value` computes the value to set now from the device's events.
"""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import status
from rest_framework.response import Response

from analytics.views import NOT_FOUND, PERIOD_PARAMETERS, AnalyticsView, Answer, Header
from apps_registry.authentication import require_app
from apps_registry.scoping import OrganizationScopedView
from apps_registry.sdk import SdkView, json_object
from attribution_site import replica
from attribution_site.api.exceptions import NotFound, RateLimited, ValidationFailed
from attribution_site.api.throttling import fixed_window_hit
from attribution_site.capabilities import CONFIGURE, READ
from conversion import report, selectors, services
from conversion.serializers import (
    CompactSchemaOutput,
    ConversionValueInput,
    ConversionValueOutput,
    SchemaDocument,
    SchemaVersionOutput,
    SkanOutput,
    device_events,
    schema_input,
)

NO_SCHEMA = "This app has no conversion schema yet."
KEY_REFUSED = OpenApiResponse(OpenApiTypes.OBJECT, description=(
    "The path's or body's app is not the key's app, or the key lacks the write permission."))
NO_SCHEMA_RESPONSE = OpenApiResponse(OpenApiTypes.OBJECT, description=NO_SCHEMA)


class ConversionSchemaListView(OrganizationScopedView):
    capability = {"GET": READ, "POST": CONFIGURE}

    @extend_schema(operation_id="conversion_schemas_list", responses={
        200: inline_serializer("ConversionSchemaList",
                               {"schemas": SchemaVersionOutput(many=True)}),
        404: NOT_FOUND}, description="Every version, newest first; the newest is active.")
    def get(self, request, app_id):
        app = self.get_app(app_id)
        versions = selectors.schema_versions(app_id=app.id)
        newest = versions[-1].version if versions else None
        return Response({"schemas": [SchemaVersionOutput((v, v.version == newest)).data
                                     for v in reversed(versions)]})

    @extend_schema(operation_id="conversion_schemas_create", request=SchemaDocument, responses={
        201: inline_serializer("ConversionSchemaCreated", {"schema": SchemaVersionOutput()}),
        404: NOT_FOUND}, description=(
            "Save a new version, which becomes the active one. Versions are never changed: to "
            "go back, save the older rules again."))
    def post(self, request, app_id):
        app = self.get_app(app_id)
        schema = schema_input(request.data)
        row = services.schema_version_create(app_id=app.id, schema=schema, now=timezone.now())
        version = report.SchemaVersion(version=row.version, created_at=row.created_at,
                                       schema=schema)
        return Response({"schema": SchemaVersionOutput((version, True)).data},
                        status=status.HTTP_201_CREATED)


class ConversionSchemaDetailView(OrganizationScopedView):
    capability = READ

    @extend_schema(operation_id="conversion_schemas_retrieve", responses={
        200: inline_serializer("ConversionSchemaDetail", {"schema": SchemaVersionOutput()}),
        404: NOT_FOUND})
    def get(self, request, app_id, version):
        app = self.get_app(app_id)
        found = selectors.schema_version(app_id=app.id, version=version)
        if found is None:
            raise NotFound("No such version of this app's conversion schema.")
        active = selectors.active_schema(app_id=app.id)
        return Response({"schema": SchemaVersionOutput(
            (found, active is not None and active.version == found.version)).data})


class SdkConversionSchemaView(SdkView):
    # A GET takes DRF's path (apps_registry/sdk.py): the key's own rate limit instead of the
    # dashboard users' throttle, which counts per user and an SDK key is none.
    throttle_classes: list = []

    @extend_schema(operation_id="conversion_schema_for_sdk", responses={
        200: inline_serializer("ConversionSchemaCompact", {"schema": CompactSchemaOutput()}),
        403: KEY_REFUSED, 404: NO_SCHEMA_RESPONSE}, description=(
            "The active schema in the compact form the SDK applies on device (API key)."))
    def get(self, request, app_id):
        client = request.user
        wait = fixed_window_hit(f"key:{client.key_id}", limit=client.rate_limit)
        if wait is not None:
            raise RateLimited(wait)
        require_app(client, app_id)
        active = selectors.active_schema(app_id=app_id)
        if active is None:
            raise NotFound(NO_SCHEMA)
        return Response({"schema": CompactSchemaOutput(active).data})


class ConversionValueView(SdkView):
    @extend_schema(operation_id="conversion_value", request=ConversionValueInput, responses={
        200: ConversionValueOutput, 403: KEY_REFUSED, 404: NO_SCHEMA_RESPONSE}, description=(
            "The SKAdNetwork conversion value to set now for a device's events, under the "
            "active schema (API key)."))
    def post(self, request):
        now = timezone.now()
        payload = ConversionValueInput(data=json_object(request.data), context={"now": now})
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        require_app(request.user, data["app_id"])
        active = selectors.active_schema(app_id=data["app_id"])
        if active is None:
            raise NotFound(NO_SCHEMA)
        try:
            answer = selectors.conversion_value_for(
                active=active, window=data.get("window"), install_time=data.get("install_time"),
                events=device_events(data["events"]), now=now)
        except selectors.WindowsClosed:
            raise ValidationFailed("Invalid input: install_time.", {"install_time": [
                "All three conversion windows have closed (35 days after install)."]}) from None
        return Response(ConversionValueOutput(answer).data)


class SkanReportView(AnalyticsView):
    reads_rollups = False  # postbacks are read as they are, not through the rollups

    @extend_schema(operation_id="analytics_skan", parameters=PERIOD_PARAMETERS,
                   responses={200: SkanOutput, 404: NOT_FOUND}, description=(
                       "Verified SKAdNetwork and AdAttributionKit postbacks per UTC day of "
                       "arrival, window, network and source identifier, decoded through the "
                       "schema version active when each arrived (docs/metrics.md, skan)."))
    def get(self, request):
        period, currency, _ = self.period()
        # Postbacks are read live: the figures hold everything the database read had when
        # asked (now on the primary; what a replica has replayed), asked before the rows.
        through = replica.complete_through()
        rows = selectors.skan_rows(app_id=period.app_id, start=period.start, end=period.end,
                                   currency=currency)
        header = Header(app_id=period.app_id, start=period.start, end=period.end,
                        currency=currency, data_through=through)
        return Response(SkanOutput(Answer(header=header, report=rows)).data)
