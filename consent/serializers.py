"""Shapes of the consent endpoint and of `consent` wherever an install shows it
(docs/privacy.md, "Consent"); `consent_input` turns `consent_data` into a Consent or a 400
naming the field by its dotted path (`consent_data.tcf.tcstring`)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from attribution_site.api.exceptions import ValidationFailed
from attribution_site.api.fields import StrictCharField, StrictSerializer, StrictUUIDField
from consent.consent_data import Consent, ConsentDataError, parse

CONSENT_DATA_SCHEMA = {
    "type": "object",
    "description": (
        "AppsFlyer's S2S consent: exactly one of `manual` {gdpr_applies: bool, "
        "ad_user_data_enabled: bool, ad_personalization_enabled: bool (both required when "
        "gdpr_applies)} or `tcf` {tcstring: str (TCF v2.2/v2.3), gdpr_applies: 0|1, "
        "policy_version: int, cmp_sdk_id: int, cmp_sdk_version: int}, and optionally "
        "`sharing_filter`: \"all\" (no partner receives this user's data)."),
    "properties": {
        "manual": {"type": "object", "properties": {
            "gdpr_applies": {"type": "boolean"},
            "ad_user_data_enabled": {"type": "boolean"},
            "ad_personalization_enabled": {"type": "boolean"}}},
        "tcf": {"type": "object", "properties": {
            "tcstring": {"type": "string"}, "gdpr_applies": {"type": "integer", "enum": [0, 1]},
            "policy_version": {"type": "integer"}, "cmp_sdk_id": {"type": "integer"},
            "cmp_sdk_version": {"type": "integer"}}},
        "sharing_filter": {"type": "string", "enum": ["all"], "nullable": True},
    },
}


@extend_schema_field(CONSENT_DATA_SCHEMA)
class ConsentDataField(serializers.Field):
    """Passed through as sent: `consent_input` checks it and names the field in its errors."""

    def to_internal_value(self, data):
        return data

    def to_representation(self, value):
        return value


def consent_input(raw: Any, *, prefix: str = "consent_data") -> Consent:
    try:
        return parse(raw, prefix=prefix)
    except ConsentDataError as exc:
        raise ValidationFailed(f"Invalid input: {exc.field}.", {exc.field: [exc.message]}
                               ) from None


class TcfOutput(serializers.Serializer):
    policy_version = serializers.IntegerField()
    cmp_id = serializers.IntegerField()
    purposes_consent = serializers.ListField(child=serializers.IntegerField())
    vendor_755 = serializers.BooleanField(help_text="Google's consent as TCF vendor 755.")


class ConsentOutput(serializers.Serializer):
    """The consent in force: Google's two signals as decided from what the SDK sent."""

    gdpr_applies = serializers.BooleanField()
    ad_user_data = serializers.BooleanField()
    ad_personalization = serializers.BooleanField()
    source = serializers.ChoiceField(choices=["manual", "tcf"])
    sharing_filter = serializers.CharField(allow_null=True, help_text=(
        '"all": no partner receives this user\'s data; else null.'))
    tcf = TcfOutput(allow_null=True, help_text="The decoded TC string; null without one.")


class ConsentChangeInput(StrictSerializer):
    app_id = StrictUUIDField()
    device_id = StrictCharField(required=False, allow_null=True, max_length=64)
    install_id = StrictUUIDField(required=False, allow_null=True)
    consent_data = ConsentDataField()

    def validate(self, attrs):
        if not attrs.get("device_id") and not attrs.get("install_id"):
            raise serializers.ValidationError(
                {"device_id": ["Send device_id or install_id."]})
        return attrs


class ConsentChangeOutput(serializers.Serializer):
    app_id = serializers.UUIDField()
    install_id = serializers.UUIDField(allow_null=True)
    device_id = serializers.CharField(allow_null=True)
    applies_from = serializers.DateTimeField()
    consent = ConsentOutput()
