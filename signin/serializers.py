"""Request and response shapes of the single sign-on and two-factor endpoints."""

from rest_framework import serializers

from attribution_site.api.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictListField,
    StrictSerializer,
)


class SsoInput(StrictSerializer):
    issuer = StrictCharField(max_length=500)
    client_id = StrictCharField(max_length=255)
    # Write-only: never answered. Left out of a PUT, the stored one is kept.
    client_secret = StrictCharField(max_length=2000, required=False, trim_whitespace=False)
    allowed_domains = StrictListField(child=StrictCharField(max_length=253), max_length=50)
    default_role = StrictCharField(max_length=16, required=False, default="viewer")
    enforce = StrictBooleanField(required=False, default=False)


class SsoOutput(serializers.Serializer):
    issuer = serializers.CharField()
    client_id = serializers.CharField()
    client_secret_set = serializers.BooleanField()
    allowed_domains = serializers.ListField(child=serializers.CharField())
    default_role = serializers.CharField()
    enforce = serializers.BooleanField()
    updated_at = serializers.DateTimeField()


class TwoFactorRuleInput(StrictSerializer):
    required = StrictBooleanField()


class TwoFactorRuleOutput(serializers.Serializer):
    required = serializers.BooleanField()


class OtpInput(StrictSerializer):
    otp = StrictCharField(max_length=64)


class OtpOffInput(StrictSerializer):
    otp = StrictCharField(max_length=64, required=False)
    password = StrictCharField(max_length=256, required=False, trim_whitespace=False)


class EnrolmentOutput(serializers.Serializer):
    secret = serializers.CharField()
    otpauth_uri = serializers.CharField()
    qr_svg = serializers.CharField(source="qr_svg_data_uri",
                                   help_text="The otpauth URI as a QR code: an SVG data URI.")


class TwoFactorStatusOutput(serializers.Serializer):
    enabled = serializers.BooleanField()
    required = serializers.BooleanField()
    recovery_codes_left = serializers.IntegerField()


class RecoveryCodesOutput(serializers.Serializer):
    recovery_codes = serializers.ListField(child=serializers.CharField())
