"""The single sign-on settings of an organization and a person's two-factor enrolment
(docs/teams.md, "Single sign-on", "Two-factor"). The sign-in itself is the console's
(console/views/signin.py): it ends in a browser session."""

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from apps_registry.scoping import OrganizationScopedView
from attribution_site.capabilities import ADMINISTER, READ
from signin import sso, two_factor
from signin.serializers import (
    EnrolmentOutput,
    OtpInput,
    OtpOffInput,
    RecoveryCodesOutput,
    SsoInput,
    SsoOutput,
    TwoFactorRuleInput,
    TwoFactorRuleOutput,
    TwoFactorStatusOutput,
)
from teams.authentication import LOGIN_NEEDED, NotByAccessToken

SSO = inline_serializer("SsoAnswer", {"sso": SsoOutput(allow_null=True)})
DONE = inline_serializer("SsoRemoved", {"success": serializers.BooleanField()})
RULE = inline_serializer("TwoFactorRuleAnswer", {"two_factor": TwoFactorRuleOutput()})
STATUS = inline_serializer("TwoFactorStatusAnswer", {"two_factor": TwoFactorStatusOutput()})
OFF = inline_serializer("TwoFactorOff", {"success": serializers.BooleanField()})


def _described(message: str) -> OpenApiResponse:
    return OpenApiResponse(OpenApiTypes.OBJECT, description=message)


def _valid(serializer_class, data) -> dict:
    payload = serializer_class(data=data)
    payload.is_valid(raise_exception=True)
    return payload.validated_data


class SsoView(OrganizationScopedView):
    capability = ADMINISTER

    @extend_schema(operation_id="org_sso_retrieve", responses={200: SSO})
    def get(self, request):
        found = sso.sso_settings(organization_id=self.organization_id)
        return Response({"sso": SsoOutput(found).data if found else None})

    @extend_schema(operation_id="org_sso_update", request=SsoInput, responses={
        200: SSO, 409: _described(sso.DOMAIN_TAKEN.format(domain="A domain"))})
    def put(self, request):
        found = sso.sso_configure(organization_id=self.organization_id,
                                  **{"client_secret": None, **_valid(SsoInput, request.data)})
        return Response({"sso": SsoOutput(found).data})

    @extend_schema(operation_id="org_sso_destroy", responses={200: DONE})
    def delete(self, request):
        sso.sso_remove(organization_id=self.organization_id)
        return Response({"success": True})


class TwoFactorRuleView(OrganizationScopedView):
    capability = ADMINISTER

    @extend_schema(operation_id="org_two_factor_retrieve", responses={200: RULE})
    def get(self, request):
        required = two_factor.two_factor_required(organization_id=self.organization_id)
        return Response({"two_factor": {"required": required}})

    @extend_schema(operation_id="org_two_factor_update", request=TwoFactorRuleInput,
                   responses={200: RULE})
    def put(self, request):
        required = two_factor.two_factor_require(organization_id=self.organization_id,
                                                 **_valid(TwoFactorRuleInput, request.data))
        return Response({"two_factor": {"required": required}})


class OtpView(OrganizationScopedView):
    capability = READ  # one's own enrolment
    permission_classes = [*OrganizationScopedView.permission_classes, NotByAccessToken]
    login_only = ("DELETE",)

    @extend_schema(operation_id="auth_otp_retrieve", responses={200: STATUS})
    def get(self, request):
        status = two_factor.two_factor_status(user=request.user)
        return Response({"two_factor": TwoFactorStatusOutput(status).data})

    @extend_schema(operation_id="auth_otp_destroy", request=OtpOffInput, responses={
        200: OFF, 403: _described(f"{two_factor.STILL_REQUIRED} / {LOGIN_NEEDED}"),
        409: _described(two_factor.NOT_ON)})
    def delete(self, request):
        proof = _valid(OtpOffInput, request.data)
        two_factor.totp_disable(user=request.user, otp=proof.get("otp"),
                                password=proof.get("password"), now=timezone.now())
        return Response({"success": True})


class OtpEnrolView(OrganizationScopedView):
    capability = READ
    permission_classes = [*OrganizationScopedView.permission_classes, NotByAccessToken]
    login_only = ("POST",)

    @extend_schema(operation_id="auth_otp_enrol", request=None, responses={
        200: EnrolmentOutput, 403: _described(LOGIN_NEEDED),
        409: _described(two_factor.ALREADY_ON)})
    def post(self, request):
        return Response(EnrolmentOutput(two_factor.totp_enrol(user=request.user)).data)


class OtpConfirmView(OrganizationScopedView):
    capability = READ
    permission_classes = [*OrganizationScopedView.permission_classes, NotByAccessToken]
    login_only = ("POST",)

    @extend_schema(operation_id="auth_otp_confirm", request=OtpInput, responses={
        200: RecoveryCodesOutput, 403: _described(LOGIN_NEEDED),
        409: _described(f"{two_factor.ALREADY_ON} / {two_factor.NOT_ENROLLING}")})
    def post(self, request):
        codes = two_factor.totp_confirm(user=request.user, now=timezone.now(),
                                        **_valid(OtpInput, request.data))
        return Response({"recovery_codes": codes})
