"""Authentication endpoints: signup, login, me (spec: Authentication endpoints)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services
from accounts.login_limits import password_login, signup_allowed
from accounts.serializers import LoginInput, SignupInput, TokenOutput, UserOutput
from attribution_site import audit_trail

EMAIL_TAKEN = OpenApiResponse(OpenApiTypes.OBJECT, description=services.EMAIL_TAKEN)
BAD_CREDENTIALS = OpenApiResponse(OpenApiTypes.OBJECT, description=services.BAD_CREDENTIALS)


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

    @extend_schema(request=LoginInput, responses={200: TokenOutput, 401: BAD_CREDENTIALS},
                   auth=[])
    def post(self, request):
        payload = LoginInput(data=request.data)
        payload.is_valid(raise_exception=True)
        user = password_login(request, **payload.validated_data)
        audit_trail.login_succeeded(request, user=user)
        return Response(_token_body(user))


class MeView(APIView):
    @extend_schema(responses={200: UserOutput})
    def get(self, request):
        return Response(UserOutput(request.user).data)
