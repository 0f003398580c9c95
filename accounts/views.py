"""Authentication endpoints: signup, login, me (spec: Authentication endpoints)."""

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services
from accounts.serializers import LoginInput, SignupInput, TokenOutput, UserOutput
from attribution_site.api.client_ip import request_client_ip
from attribution_site.api.throttling import enforce

TOO_MANY_LOGINS = "Too many login attempts; try again later."
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
        enforce(request, group="signup", key=request_client_ip(request),
                rate=settings.SIGNUP_RATE_LIMIT)
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
        email = payload.validated_data["email"]
        address = request_client_ip(request)
        enforce(request, group="login-address", key=address,
                rate=settings.LOGIN_RATE_LIMIT_PER_ADDRESS, message=TOO_MANY_LOGINS)
        enforce(request, group="login", key=f"{email}|{address}",
                rate=settings.LOGIN_RATE_LIMIT, message=TOO_MANY_LOGINS)
        user = services.user_authenticate(**payload.validated_data)
        return Response(_token_body(user))


class MeView(APIView):
    @extend_schema(responses={200: UserOutput})
    def get(self, request):
        return Response(UserOutput(request.user).data)
