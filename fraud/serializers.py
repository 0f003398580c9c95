"""Request and response shapes of an app's fraud settings (docs/fraud.md, "Settings")."""

from __future__ import annotations

import ipaddress

from rest_framework import serializers

from attribution_site.api.fields import (
    StrictCharField,
    StrictIntegerField,
    StrictListField,
    StrictSerializer,
)
from fraud import verdict

MAX_LISTED_NETWORKS = 1000
MAX_TEST_DEVICES = 100
MAX_CTIT_FLOOR_SECONDS = 3600
MAX_ENGAGEMENTS_PER_HOUR = 10_000


def _mode_field(choices=verdict.MODES) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=list(choices), required=False, error_messages={
        "invalid_choice": f"Must be one of: {', '.join(choices)}."})


class FraudSettingsBody(StrictSerializer):
    """Every field optional on a PUT: the ones sent replace the stored values."""

    engagement_injection_mode = _mode_field()
    ctit_anomalies_mode = _mode_field()
    ctit_floor_seconds = StrictIntegerField(required=False, min_value=0,
                                            max_value=MAX_CTIT_FLOOR_SECONDS)
    too_many_engagements_mode = _mode_field()
    too_many_engagements_per_hour = StrictIntegerField(required=False, min_value=1,
                                                       max_value=MAX_ENGAGEMENTS_PER_HOUR)
    click_flood_mode = _mode_field()
    anonymous_traffic_mode = _mode_field()
    listed_networks = StrictListField(
        child=StrictCharField(max_length=64), required=False, max_length=MAX_LISTED_NETWORKS,
        error_messages={"max_length": f"At most {MAX_LISTED_NETWORKS} networks."})
    bots_mode = _mode_field()
    test_devices = StrictListField(
        child=StrictCharField(max_length=64), required=False, max_length=MAX_TEST_DEVICES,
        error_messages={"max_length": f"At most {MAX_TEST_DEVICES} devices."})
    signing_mode = _mode_field(verdict.SIGNING_MODES)

    def validate_listed_networks(self, value):
        networks = []
        for index, item in enumerate(value):
            try:
                networks.append(str(ipaddress.ip_network(item.strip(), strict=False)))
            except ValueError:
                raise serializers.ValidationError(
                    f"Item {index + 1}: must be an IPv4 or IPv6 network in CIDR notation "
                    "(203.0.113.0/24, 2001:db8::/32).") from None
        return list(dict.fromkeys(networks))

    def validate_test_devices(self, value):
        devices = [item.strip().lower() for item in value]
        for index, device in enumerate(devices):
            if not device:
                raise serializers.ValidationError(f"Item {index + 1}: must not be empty.")
        return list(dict.fromkeys(devices))


class FraudSettingsOutput(serializers.Serializer):
    engagement_injection_mode = serializers.CharField()
    ctit_anomalies_mode = serializers.CharField()
    ctit_floor_seconds = serializers.IntegerField()
    too_many_engagements_mode = serializers.CharField()
    too_many_engagements_per_hour = serializers.IntegerField()
    click_flood_mode = serializers.CharField()
    anonymous_traffic_mode = serializers.CharField()
    listed_networks = serializers.ListField(child=serializers.CharField())
    bots_mode = serializers.CharField()
    test_devices = serializers.ListField(child=serializers.CharField())
    signing_mode = serializers.CharField()
