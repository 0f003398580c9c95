"""Invitations (admins) and their acceptance (anyone holding a link), and a person's own
personal access tokens (docs/teams.md, "Invitations", "Personal access tokens")."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services
from accounts.serializers import TokenOutput, UserOutput
from apps_registry.scoping import OrganizationScopedView
from attribution_site import audit_trail
from attribution_site.capabilities import ADMINISTER, READ
from teams import access_tokens, invitations, sending
from teams.accept_limits import invitation_accept_limited
from teams.authentication import LOGIN_NEEDED, NotByAccessToken
from teams.serializers import (
    AcceptInput,
    AccessTokenCreated,
    AccessTokenInput,
    AccessTokenOutput,
    InvitationCreated,
    InvitationInput,
    InvitationOutput,
)

EMAIL_REGISTERED = OpenApiResponse(OpenApiTypes.OBJECT, description=invitations.EMAIL_REGISTERED)
REFUSED = OpenApiResponse(OpenApiTypes.OBJECT, description=invitations.INVITATION_REFUSED)
DELETED = inline_serializer("TeamsDeleted", {"success": serializers.BooleanField()})


class InvitationListView(OrganizationScopedView):
    capability = ADMINISTER

    @extend_schema(operation_id="org_invitations_list", responses={200: inline_serializer(
        "InvitationList", {"invitations": InvitationOutput(many=True)})})
    def get(self, request):
        pending = invitations.invitations_pending(organization_id=self.organization_id,
                                                  now=timezone.now())
        return Response({"invitations": InvitationOutput(pending, many=True).data})

    @extend_schema(operation_id="org_invitations_create", request=InvitationInput,
                   responses={201: InvitationCreated, 409: EMAIL_REGISTERED})
    def post(self, request):
        payload = InvitationInput(data=request.data)
        payload.is_valid(raise_exception=True)
        sent = sending.invitation_send(request, organization_id=self.organization_id,
                                       inviter=request.user, **payload.validated_data)
        return Response(InvitationCreated(sent).data, status=status.HTTP_201_CREATED)


class InvitationDetailView(OrganizationScopedView):
    capability = ADMINISTER

    @extend_schema(operation_id="org_invitations_destroy", responses={200: DELETED})
    def delete(self, request, invitation_id):
        invitations.invitation_revoke(organization_id=self.organization_id,
                                      invitation_id=invitation_id)
        return Response({"success": True})


class InvitationAcceptView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []

    @extend_schema(operation_id="auth_invitations_accept", request=AcceptInput,
                   responses={201: TokenOutput, 400: REFUSED, 409: EMAIL_REGISTERED}, auth=[])
    def post(self, request):
        payload = AcceptInput(data=request.data)
        payload.is_valid(raise_exception=True)
        user = invitation_accept_limited(request, **payload.validated_data)
        audit_trail.login_succeeded(request, user=user, method=invitations.LOGIN_METHOD)
        return Response({"token": services.access_token_issue(user=user),
                         "user": UserOutput(user).data}, status=status.HTTP_201_CREATED)


class AccessTokenListView(OrganizationScopedView):
    capability = READ  # every role: a person's own tokens
    permission_classes = [*OrganizationScopedView.permission_classes, NotByAccessToken]
    login_only = ("POST",)

    @extend_schema(operation_id="auth_tokens_list", responses={200: inline_serializer(
        "AccessTokenList", {"access_tokens": AccessTokenOutput(many=True)})})
    def get(self, request):
        mine = access_tokens.access_tokens_of(user=request.user, now=timezone.now())
        return Response({"access_tokens": AccessTokenOutput(mine, many=True).data})

    @extend_schema(operation_id="auth_tokens_create", request=AccessTokenInput,
                   responses={201: AccessTokenCreated,
                              403: OpenApiResponse(description=LOGIN_NEEDED)})
    def post(self, request):
        payload = AccessTokenInput(data=request.data)
        payload.is_valid(raise_exception=True)
        issued = access_tokens.access_token_create(user=request.user, now=timezone.now(),
                                                   **payload.validated_data)
        return Response(AccessTokenCreated(issued).data, status=status.HTTP_201_CREATED)


class AccessTokenDetailView(OrganizationScopedView):
    capability = READ

    @extend_schema(operation_id="auth_tokens_destroy", responses={200: DELETED})
    def delete(self, request, token_id):
        access_tokens.access_token_delete(user=request.user, token_id=token_id)
        return Response({"success": True})
