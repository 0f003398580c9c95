"""Data destination endpoints (docs/export.md, "Destinations"): create, list, read, change and
remove a destination, test it, start a run now and list its runs. JWT, the roles that configure
apps only (admins and developers: they hand the service credentials to their storage), scoped
to the caller's organization: another organization's destination is a 404. Views parse, call
one service or selector, and serialize; errors are raised.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from apps_registry import selectors as app_selectors
from apps_registry.scoping import OrganizationScopedView
from attribution_site.api.exceptions import NotFound
from attribution_site.api.pagination import limit_from_query
from attribution_site.capabilities import CONFIGURE
from raw_export import selectors, services
from raw_export.serializers import (
    DestinationCreateInput,
    DestinationOutput,
    DestinationUpdateInput,
    RunOutput,
    complete,
)

NOT_FOUND = "Data destination not found."
DESTINATION = inline_serializer("DataDestinationAnswer", {"destination": DestinationOutput()})
DESTINATIONS = inline_serializer("DataDestinationList",
                                 {"destinations": DestinationOutput(many=True)})
DELETED = inline_serializer("DataDestinationDeleted", {"success": serializers.BooleanField()})
TESTED = inline_serializer("DataDestinationTest", {
    "ok": serializers.BooleanField(),
    "reason": serializers.CharField(help_text=(
        "Empty when ok; else bad_credentials, denied, no_bucket, wrong_region, unreachable, "
        "full or failed.")),
    "message": serializers.CharField(help_text="What went wrong, in words (plain text).")})
RUN = inline_serializer("DataDestinationRunStarted", {"run": RunOutput()})
RUNS = inline_serializer("DataDestinationRuns", {"runs": RunOutput(many=True)})


class DestinationAdminView(OrganizationScopedView):
    capability = CONFIGURE

    def get_destination(self):
        destination = selectors.destination_for_organization(
            organization_id=self.organization_id, destination_id=self.kwargs["destination_id"])
        if destination is None:
            raise NotFound(NOT_FOUND)
        return destination

    def organization_app_ids(self) -> set[str]:
        return {str(app_id) for app_id in app_selectors.apps_for_organization(
            organization_id=self.organization_id).values_list("id", flat=True)}

    def answer(self, destinations, *, many=False):
        items = list(destinations) if many else [destinations]
        context = {"last_runs": selectors.last_runs(
            destination_ids=[item.id for item in items])}
        return DestinationOutput(destinations, many=many, context=context).data


class DestinationListView(DestinationAdminView):
    @extend_schema(operation_id="data_destinations_list",
                   responses={200: DESTINATIONS})
    def get(self, request):
        rows = selectors.destinations_for_organization(organization_id=self.organization_id)
        return Response({"destinations": self.answer(rows, many=True)})

    @extend_schema(operation_id="data_destinations_create", request=DestinationCreateInput,
                   responses={201: DESTINATION})
    def post(self, request):
        payload = DestinationCreateInput(data=request.data)
        payload.is_valid(raise_exception=True)
        fields = complete(dict(payload.validated_data), current=None,
                          organization_app_ids=self.organization_app_ids())
        destination = services.destination_create(organization_id=self.organization_id,
                                                  fields=fields)
        return Response({"destination": self.answer(destination)},
                        status=status.HTTP_201_CREATED)


class DestinationDetailView(DestinationAdminView):
    @extend_schema(operation_id="data_destinations_retrieve",
                   responses={200: DESTINATION})
    def get(self, request, destination_id):
        return Response({"destination": self.answer(self.get_destination())})

    @extend_schema(operation_id="data_destinations_update", request=DestinationUpdateInput,
                   responses={200: DESTINATION})
    def put(self, request, destination_id):
        destination = self.get_destination()
        payload = DestinationUpdateInput(data=request.data)
        payload.is_valid(raise_exception=True)
        changes = complete(dict(payload.validated_data), current=destination,
                           organization_app_ids=self.organization_app_ids())
        destination = services.destination_update(destination=destination, changes=changes)
        return Response({"destination": self.answer(destination)})

    @extend_schema(operation_id="data_destinations_destroy",
                   responses={200: DELETED})
    def delete(self, request, destination_id):
        services.destination_delete(destination=self.get_destination())
        return Response({"success": True})


class DestinationTestView(DestinationAdminView):
    @extend_schema(operation_id="data_destinations_test", request=None,
                   responses={200: TESTED})
    def post(self, request, destination_id):
        result = services.destination_test(destination=self.get_destination())
        return Response({"ok": result.ok, "reason": result.reason, "message": result.message})


class DestinationRunsView(DestinationAdminView):
    @extend_schema(operation_id="data_destinations_runs_list",
                   parameters=[OpenApiParameter("limit", int, description="1 to 500, default 50")],
                   responses={200: RUNS})
    def get(self, request, destination_id):
        destination = self.get_destination()
        limit = limit_from_query(request.query_params)
        runs = selectors.runs_of(destination_id=destination.id, limit=limit)
        return Response({"runs": RunOutput(runs, many=True).data})

    @extend_schema(operation_id="data_destinations_runs_create", request=None,
                   responses={202: RUN})
    def post(self, request, destination_id):
        run = services.run_start(destination=self.get_destination())
        run.refresh_from_db()
        return Response({"run": RunOutput(run).data}, status=status.HTTP_202_ACCEPTED)
