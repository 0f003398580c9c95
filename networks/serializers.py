"""Shapes of the integrations endpoints (docs/networks.md): what a PUT takes, and what every
answer shows of a configuration, which is never a secret, at most its last 4 characters."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from attribution_site.api.fields import StrictSerializer
from networks import validation
from networks.models import META_VIEW_WINDOW_DEFAULT_HOURS, GoogleAdsConfig, MetaConfig
from networks.spend.serializers import COST_INPUTS, COST_OUTPUTS


class _RuleField(serializers.Field):
    """A field checked by one of networks/validation.py's rules."""

    rule = staticmethod(lambda value: value)

    def to_internal_value(self, data):
        try:
            return self.rule(data)
        except validation.Invalid as exc:
            raise serializers.ValidationError(str(exc)) from None

    def to_representation(self, value):
        return value


@extend_schema_field({"type": "string", "pattern": "^[0-9a-fA-F]{64}$"})
class DecryptionKeyField(_RuleField):
    rule = staticmethod(validation.decryption_key)


@extend_schema_field({"type": "string", "pattern": "^[0-9]{1,32}$"})
class MetaAppIdField(_RuleField):
    rule = staticmethod(validation.meta_app_id)


@extend_schema_field({"type": "string", "nullable": True, "maxLength": 512})
class AccessTokenField(_RuleField):
    rule = staticmethod(validation.access_token)


@extend_schema_field({"type": "string", "minLength": 8, "maxLength": 64})
class LinkIdField(_RuleField):
    rule = staticmethod(validation.link_id)


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": 168})
class ViewWindowField(_RuleField):
    rule = staticmethod(validation.view_window_hours)


@extend_schema_field({"type": "object", "additionalProperties": {"type": "string"},
                      "maxProperties": validation.MAX_MAPPED_EVENTS,
                      "example": {"purchase": "fb_mobile_purchase"}})
class EventMappingField(_RuleField):
    rule = staticmethod(validation.event_mapping)


class MetaIntegrationInput(StrictSerializer):
    meta_app_id = MetaAppIdField(help_text="Meta's app id (App Dashboard, top of the page).")
    install_referrer_decryption_key = DecryptionKeyField(required=False, help_text=(
        "App Dashboard > Settings > Basic > Android: Install Referrer Decryption Key. "
        "Required the first time; left out, the stored key stays."))
    access_token = AccessTokenField(required=False, allow_null=True, help_text=(
        "For sending conversions (Conversions API): a system user's access token. Left "
        "out, the stored token stays; null removes it."))
    event_mapping = EventMappingField(required=False, allow_null=True, help_text=(
        "Our event name -> Meta's event name, for the events sent to Meta."))
    view_window_hours = ViewWindowField(required=False, help_text=(
        f"How long after an ad view an install is still credited to it (view-through); "
        f"default {META_VIEW_WINDOW_DEFAULT_HOURS}."))
    cost = COST_INPUTS["meta"](required=False, help_text=(
        "The ad spend connection (docs/networks.md, \"Ad spend\"); a body with only this "
        "changes only it."))


class GoogleAdsIntegrationInput(StrictSerializer):
    link_id = LinkIdField(required=False, help_text=(
        "Google Ads > Tools > Data manager > Linked accounts > Third-party app analytics: "
        "the link id made for this app (provider: other). Required the first time; left "
        "out, the stored link id stays."))
    event_mapping = EventMappingField(required=False, allow_null=True, help_text=(
        "Our event name -> Google's event name (in_app_purchase, or a custom name)."))
    cost = COST_INPUTS["google_ads"](required=False, help_text=(
        "The ad spend connection (docs/networks.md, \"Ad spend\"); a body with only this "
        "changes only it."))


class MetaIntegrationOutput(serializers.Serializer):
    configured = serializers.BooleanField()
    meta_app_id = serializers.CharField(allow_null=True)
    install_referrer_decryption_key_last4 = serializers.CharField(allow_null=True)
    access_token_last4 = serializers.CharField(allow_null=True)
    event_mapping = serializers.DictField(child=serializers.CharField())
    view_window_hours = serializers.IntegerField(allow_null=True)
    updated_at = serializers.DateTimeField(allow_null=True)
    cost = COST_OUTPUTS["meta"]()


class GoogleAdsIntegrationOutput(serializers.Serializer):
    configured = serializers.BooleanField()
    link_id_last4 = serializers.CharField(allow_null=True)
    event_mapping = serializers.DictField(child=serializers.CharField())
    updated_at = serializers.DateTimeField(allow_null=True)
    cost = COST_OUTPUTS["google_ads"]()


class TikTokIntegrationOutput(serializers.Serializer):
    cost = COST_OUTPUTS["tiktok"]()


class AppleAdsIntegrationOutput(serializers.Serializer):
    cost = COST_OUTPUTS["apple_ads"]()


class TikTokIntegrationInput(serializers.Serializer):
    cost = COST_INPUTS["tiktok"]()


class AppleAdsIntegrationInput(serializers.Serializer):
    cost = COST_INPUTS["apple_ads"]()


class IntegrationsOutput(serializers.Serializer):
    meta = MetaIntegrationOutput()
    google_ads = GoogleAdsIntegrationOutput()
    tiktok = TikTokIntegrationOutput()
    apple_ads = AppleAdsIntegrationOutput()


def meta_answer(config: MetaConfig | None) -> dict:
    if config is None:
        return {"configured": False, "meta_app_id": None,
                "install_referrer_decryption_key_last4": None, "access_token_last4": None,
                "event_mapping": {}, "view_window_hours": None, "updated_at": None}
    return {"configured": True, "meta_app_id": config.meta_app_id,
            "install_referrer_decryption_key_last4": config.decryption_key_last4,
            "access_token_last4": config.access_token_last4 or None,
            "event_mapping": config.event_mapping, "view_window_hours": config.view_window_hours,
            "updated_at": config.updated_at}


def google_ads_answer(config: GoogleAdsConfig | None) -> dict:
    if config is None:
        return {"configured": False, "link_id_last4": None, "event_mapping": {},
                "updated_at": None}
    return {"configured": True, "link_id_last4": config.link_id_last4,
            "event_mapping": config.event_mapping, "updated_at": config.updated_at}
