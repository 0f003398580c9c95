"""Authentication endpoints: signup, login, me (spec: Authentication endpoints); an
organization's members (docs/teams.md, "Members")."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import members, services
from accounts.login_limits import password_login, signup_allowed
from accounts.serializers import (
    LoginInput,
    MemberOutput,
    MemberRoleInput,
    SignupInput,
    TokenOutput,
    UserOutput,
)
from apps_registry.scoping import OrganizationScopedView
from attribution_site import audit_trail
from attribution_site.capabilities import ADMINISTER, READ

EMAIL_TAKEN = OpenApiResponse(OpenApiTypes.OBJECT, description=services.EMAIL_TAKEN)
BAD_CREDENTIALS = OpenApiResponse(OpenApiTypes.OBJECT, description=services.BAD_CREDENTIALS)
# Checks other apps register (accounts/login_checks.py): two-factor's `otp`, SSO's `enforce`.
LOGIN_REFUSED = OpenApiResponse(OpenApiTypes.OBJECT, description=(
    "401 also when two-factor is on and `otp` is missing (details {\"otp\": [\"required\"]}) "
    "or wrong ({\"otp\": [\"wrong\"]}); 403 when the email's organization enforces single "
    "sign-on ({\"email\": [\"sso_required\"]}) or requires two-factor of a person not "
    "enrolled yet ({\"otp\": [\"enrolment_required\"]})."))
LAST_ADMIN = OpenApiResponse(OpenApiTypes.OBJECT, description=members.LAST_ADMIN)
MEMBER = inline_serializer("MemberAnswer", {"member": MemberOutput()})
REMOVED = inline_serializer("MemberRemoved", {"success": serializers.BooleanField()})


def _token_body(user) -> dict:
    return {"token": services.access_token_issue(user=user), "user": UserOutput(user).data}


class SignupView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []

    @extend_schema(request=SignupInput, responses={201: TokenOutput, 409: EMAIL_TAKEN}, auth=[])
    def post(self, request):
        signup_allowed(request)
        payload = SignupInput(data=request.data)
        payload.is_valid(raise_exception=True)
        user = services.account_signup(**payload.validated_data)
        return Response(_token_body(user), status=status.HTTP_201_CREATED)


class LoginView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []

    @extend_schema(request=LoginInput, responses={200: TokenOutput, 401: BAD_CREDENTIALS,
                                                  403: LOGIN_REFUSED}, auth=[])
    def post(self, request):
        payload = LoginInput(data=request.data)
        payload.is_valid(raise_exception=True)
        user = password_login(request, **payload.validated_data)
        audit_trail.login_succeeded(request, user=user)
        return Response(_token_body(user))


class MeView(APIView):
    capability = READ  # every role: the caller's own account, role included

    @extend_schema(responses={200: UserOutput})
    def get(self, request):
        return Response(UserOutput(request.user).data)


class MemberListView(OrganizationScopedView):
    capability = ADMINISTER

    @extend_schema(operation_id="org_members_list", responses={200: inline_serializer(
        "MemberList", {"members": MemberOutput(many=True)})})
    def get(self, request):
        people = members.members_of(organization_id=self.organization_id)
        return Response({"members": MemberOutput(people, many=True).data})


class MemberDetailView(OrganizationScopedView):
    capability = ADMINISTER

    @extend_schema(request=MemberRoleInput, responses={200: MEMBER, 409: LAST_ADMIN})
    def patch(self, request, member_id):
        payload = MemberRoleInput(data=request.data)
        payload.is_valid(raise_exception=True)
        member = members.member_role_change(organization_id=self.organization_id,
                                            member_id=member_id, **payload.validated_data)
        return Response({"member": MemberOutput(member).data})

    @extend_schema(responses={200: REMOVED, 409: LAST_ADMIN})
    def delete(self, request, member_id):
        members.member_remove(organization_id=self.organization_id, member_id=member_id)
        return Response({"success": True})
