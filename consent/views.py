"""POST /api/v1/consent (API key, like /installs): a user's consent changes from now on
(docs/privacy.md, "Consent")."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from apps_registry.authentication import require_app
from apps_registry.sdk import SdkView, json_object
from consent import services
from consent.consent_data import public
from consent.serializers import ConsentChangeInput, ConsentChangeOutput, consent_input


class ConsentChangeView(SdkView):
    @extend_schema(operation_id="consent_create", request=ConsentChangeInput,
                   responses={201: ConsentChangeOutput})
    def post(self, request):
        payload = ConsentChangeInput(data=json_object(request.data))
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        require_app(request.user, data["app_id"])
        change = services.consent_change(
            app_id=data["app_id"], install_id=data.get("install_id"),
            device_id=data.get("device_id") or None,
            consent=consent_input(data["consent_data"]), now=timezone.now())
        return Response({
            "app_id": str(data["app_id"]),
            "install_id": str(change.install_id) if change.install_id else None,
            "device_id": change.device_id,
            "applies_from": serializers.DateTimeField().to_representation(change.applies_from),
            "consent": public(change.consent),
        }, status=status.HTTP_201_CREATED)
