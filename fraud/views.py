"""The fraud-settings endpoint: GET and PUT for the roles that configure apps (admins and
developers); every role reads the fraud report (analytics)."""

from __future__ import annotations

from dataclasses import asdict

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework.response import Response

from apps_registry.scoping import OrganizationScopedView
from attribution_site.capabilities import CONFIGURE
from fraud import selectors, services
from fraud.serializers import FraudSettingsBody, FraudSettingsOutput

SETTINGS = inline_serializer("FraudSettingsAnswer", {"fraud_settings": FraudSettingsOutput()})


def _answer(settings: selectors.FraudSettings) -> Response:
    body = asdict(settings)
    body["listed_networks"] = list(settings.listed_networks)
    body["test_devices"] = sorted(settings.test_devices)
    return Response({"fraud_settings": FraudSettingsOutput(body).data})


class FraudSettingsView(OrganizationScopedView):
    capability = CONFIGURE

    @extend_schema(operation_id="apps_fraud_settings_retrieve", responses={200: SETTINGS})
    def get(self, request, app_id):
        app = self.get_app(app_id)
        return _answer(selectors.settings_of(app.id))

    @extend_schema(operation_id="apps_fraud_settings_update", request=FraudSettingsBody,
                   responses={200: SETTINGS})
    def put(self, request, app_id):
        app = self.get_app(app_id)
        payload = FraudSettingsBody(data=request.data)
        payload.is_valid(raise_exception=True)
        return _answer(services.settings_update(app_id=app.id, changes=payload.validated_data))
