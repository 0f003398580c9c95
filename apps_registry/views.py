"""App and API key endpoints, all scoped to the caller's organization."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from apps_registry import selectors, services
from apps_registry.scoping import OrganizationScopedView
from apps_registry.serializers import (
    ApiKeyCreatedOutput,
    ApiKeyCreateInput,
    ApiKeyOutput,
    AppCreateInput,
    AppDetailOutput,
    AppOutput,
    AppUpdateInput,
)
from attribution_site.api.exceptions import NotFound
from attribution_site.capabilities import CONFIGURE, READ

DELETED = inline_serializer("Deleted", {"success": serializers.BooleanField()})
IDENTIFIER_TAKEN = OpenApiResponse(OpenApiTypes.OBJECT, description=(
    "An app of this platform with this identifier exists in the organization."))


class AppListView(OrganizationScopedView):
    capability = {"GET": READ, "POST": CONFIGURE}

    @extend_schema(operation_id="apps_list",
                   responses={200: inline_serializer("AppList", {"apps": AppOutput(many=True)})})
    def get(self, request):
        apps = selectors.apps_for_organization(organization_id=self.organization_id)
        return Response({"apps": AppOutput(apps, many=True).data})

    @extend_schema(request=AppCreateInput,
                   responses={201: inline_serializer("AppCreated", {"app": AppOutput()}),
                              409: IDENTIFIER_TAKEN})
    def post(self, request):
        payload = AppCreateInput(data=request.data)
        payload.is_valid(raise_exception=True)
        app = services.app_create(organization_id=self.organization_id,
                                  **payload.validated_data)
        return Response({"app": AppOutput(app).data}, status=status.HTTP_201_CREATED)


class AppDetailView(OrganizationScopedView):
    capability = {"GET": READ, "PUT": CONFIGURE, "DELETE": CONFIGURE}

    @extend_schema(responses={200: inline_serializer("AppDetail", {"app": AppDetailOutput()})})
    def get(self, request, app_id):
        return Response({"app": AppDetailOutput(self.get_app(app_id)).data})

    @extend_schema(request=AppUpdateInput,
                   responses={200: inline_serializer("AppUpdated", {"app": AppDetailOutput()})})
    def put(self, request, app_id):
        app = self.get_app(app_id)
        payload = AppUpdateInput(app, data=request.data)
        payload.is_valid(raise_exception=True)
        services.app_update(app=app, changes=payload.validated_data)
        return Response({"app": AppDetailOutput(app).data})

    @extend_schema(responses={200: DELETED})
    def delete(self, request, app_id):
        services.app_delete(app=self.get_app(app_id))
        return Response({"success": True})


class AppKeyListView(OrganizationScopedView):
    capability = CONFIGURE

    @extend_schema(responses={200: inline_serializer("ApiKeyList",
                                                     {"keys": ApiKeyOutput(many=True)})})
    def get(self, request, app_id):
        app = self.get_app(app_id)
        return Response({"keys": ApiKeyOutput(selectors.api_keys_for_app(app_id=app.id),
                                              many=True).data})

    @extend_schema(request=ApiKeyCreateInput,
                   responses={201: inline_serializer("ApiKeyCreated",
                                                     {"key": ApiKeyCreatedOutput()})})
    def post(self, request, app_id):
        app = self.get_app(app_id)
        payload = ApiKeyCreateInput(data=request.data)
        payload.is_valid(raise_exception=True)
        fields = dict(payload.validated_data)
        if fields.pop("signing"):
            key, full_key, secret = services.api_key_create_signing(app=app, **fields)
            body = dict(ApiKeyOutput(key).data, full_key=full_key, signing_secret=secret)
        else:
            key, full_key = services.api_key_create(app=app, **fields)
            body = dict(ApiKeyOutput(key).data, full_key=full_key)
        return Response({"key": body}, status=status.HTTP_201_CREATED)


class KeyDetailView(OrganizationScopedView):
    capability = CONFIGURE

    @extend_schema(responses={200: DELETED})
    def delete(self, request, key_id):
        key = selectors.api_key_for_organization(organization_id=self.organization_id,
                                                 key_id=key_id)
        if key is None:
            raise NotFound("API key not found.")
        services.api_key_revoke(key=key)
        return Response({"success": True})
