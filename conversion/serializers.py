"""Request and response shapes of the conversion-value endpoints and the SKAdNetwork report
(docs/apple.md, "Conversion-value schemas").

A schema body is checked by `conversion.values.schema_parse` (the rules live with the function
that applies them); the serializers named `*Document` describe it for the OpenAPI schema only.
The SDK's `POST /conversion-value` ignores fields it does not know, as /installs and /events do,
so an older service answers a newer SDK; the dashboard's schema body refuses them, so a typo in
a rule is a 400 rather than a rule that silently matches everything.
"""

from __future__ import annotations

from datetime import UTC, datetime

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from analytics.serializers import HeaderOutput, money, percent, unconverted
from attribution_site.api.fields import (
    StrictCharField,
    StrictIntegerField,
    StrictListField,
    StrictUUIDField,
)
from attribution_site.currencies import ISO_4217, NOT_A_CURRENCY, currency_code
from conversion import values
from conversion.selectors import DeviceEvent

EARLIEST_MS = 946_684_800_000  # 2000-01-01, as /events
FUTURE_TOLERANCE_MS = 24 * 3600 * 1000  # a device clock a day fast, as /events
MAX_EVENTS = 1000


def schema_input(data: object) -> values.Schema:
    """The checked schema a dashboard body describes; a 400 naming each bad field otherwise."""
    try:
        return values.schema_parse(data, currencies=ISO_4217)
    except values.SchemaInvalid as exc:
        raise serializers.ValidationError(exc.errors) from None


# --- Documentation of the schema body ---------------------------------------------------------

class RuleDocument(serializers.Serializer):
    event_name = serializers.CharField(required=False, allow_null=True, help_text=(
        "Events of this name count toward the rule; any name (no catalog). Without one the "
        "rule reads the summed revenue of all events."))
    min_count = serializers.IntegerField(required=False, default=1, help_text=(
        "At least this many events of event_name in the window."))
    min_revenue = serializers.DecimalField(max_digits=19, decimal_places=6, required=False,
                                           allow_null=True, help_text="Included.")
    max_revenue = serializers.DecimalField(max_digits=19, decimal_places=6, required=False,
                                           allow_null=True, help_text="Excluded.")
    fine = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=63,
                                    help_text="Required in window 0, refused in windows 1-2.")
    coarse = serializers.ChoiceField(choices=values.COARSE_VALUES)


class WindowDocument(serializers.Serializer):
    lock_window = serializers.BooleanField(required=False, default=False, help_text=(
        "Lock the window once its most valuable rule is reached."))
    rules = RuleDocument(many=True)


class SchemaDocument(serializers.Serializer):
    currency = serializers.CharField(required=False, default="USD",
                                     help_text="ISO 4217 code of the revenue ranges.")
    windows = WindowDocument(many=True, help_text=(
        "Exactly three: days 0-2, 3-7 and 8-35 after install."))


class SchemaVersionOutput(serializers.Serializer):
    version = serializers.IntegerField()
    active = serializers.BooleanField(help_text="The newest version is the active one.")
    created_at = serializers.DateTimeField()
    currency = serializers.CharField(source="schema.currency")
    windows = WindowDocument(many=True)

    def to_representation(self, instance):
        version, active = instance
        document = values.schema_document(version.schema)
        return {"version": version.version, "active": active,
                "created_at": self.fields["created_at"].to_representation(version.created_at),
                "currency": document["currency"], "windows": document["windows"]}


class CompactRuleOutput(serializers.Serializer):
    coarse = serializers.CharField()
    fine = serializers.IntegerField(required=False, help_text="Window 0 only.")
    event_name = serializers.CharField(required=False)
    min_count = serializers.IntegerField(required=False, help_text="With event_name.")
    min_revenue = serializers.CharField(required=False, help_text="Decimal, included.")
    max_revenue = serializers.CharField(required=False, help_text="Decimal, excluded.")


class CompactWindowOutput(serializers.Serializer):
    lock = serializers.BooleanField()
    rules = CompactRuleOutput(many=True)


class CompactSchemaOutput(serializers.Serializer):
    schema_version = serializers.IntegerField()
    currency = serializers.CharField()
    w = CompactWindowOutput(many=True, help_text="Windows 0, 1, 2 (days 0-2, 3-7, 8-35).")

    def to_representation(self, version):
        return {"schema_version": version.version, **values.compact(version.schema)}


# --- The SDK's value request ------------------------------------------------------------------

@extend_schema_field(OpenApiTypes.NUMBER)
class UnixMillisField(serializers.Field):
    """Unix time in milliseconds (a JSON number), from 2000 to a day past `now` in context."""

    default_error_messages = {
        "invalid": "Must be Unix time in milliseconds (a number).",
        "out_of_range": "Out of range: Unix milliseconds between 2000 and tomorrow.",
    }

    def to_internal_value(self, data) -> datetime:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        now_ms = self.context["now"].timestamp() * 1000
        if not EARLIEST_MS <= data <= now_ms + FUTURE_TOLERANCE_MS:
            self.fail("out_of_range")
        return datetime.fromtimestamp(data / 1000, tz=UTC)

    def to_representation(self, value):
        return int(value.timestamp() * 1000)


class DeviceEventInput(serializers.Serializer):
    default_error_messages = {"invalid": "Must be a JSON object."}  # not DRF's "dictionary"

    event_name = StrictCharField(max_length=values.MAX_EVENT_NAME_LENGTH)
    revenue = serializers.DecimalField(max_digits=19, decimal_places=6, required=False,
                                       allow_null=True, help_text="Negative for a refund.")
    currency = StrictCharField(required=False, allow_null=True, help_text=(
        "ISO 4217; required with revenue. Converted to the schema's currency at the day's "
        "rate."))
    timestamp = UnixMillisField(help_text="Unix milliseconds, as /events.")

    def validate_currency(self, value):
        if value is None:
            return None
        code = currency_code(value)
        if code is None:
            raise serializers.ValidationError(NOT_A_CURRENCY)
        return code

    def validate(self, attrs):
        if attrs.get("revenue") is not None and not attrs.get("currency"):
            raise serializers.ValidationError({"currency": ["Required with revenue."]})
        return attrs


class ConversionValueInput(serializers.Serializer):
    app_id = StrictUUIDField()
    window = StrictIntegerField(required=False, allow_null=True, min_value=0,
                                max_value=values.WINDOW_COUNT - 1, help_text=(
                                    "0, 1 or 2; without it, the window open now for "
                                    "install_time."))
    install_time = UnixMillisField(required=False, allow_null=True, help_text=(
        "Unix milliseconds. When given, only events inside the window count."))
    events = StrictListField(child=DeviceEventInput(), max_length=MAX_EVENTS, help_text=(
        "The device's events since install (or of the window), oldest first or not."))

    def validate(self, attrs):
        if attrs.get("window") is None and attrs.get("install_time") is None:
            raise serializers.ValidationError({"window": [
                "Required when install_time is not given."]})
        return attrs


def device_events(rows: list[dict]) -> list[DeviceEvent]:
    return [DeviceEvent(event_name=row["event_name"].strip(), revenue=row.get("revenue"),
                        currency=row.get("currency"), at=row["timestamp"]) for row in rows]


class ConversionValueOutput(serializers.Serializer):
    fine = serializers.IntegerField(allow_null=True, help_text=(
        "0-63 in window 0; null in windows 1-2 or when no rule matched."))
    coarse = serializers.ChoiceField(choices=values.COARSE_VALUES, allow_null=True,
                                     help_text="Null when no rule matched: set nothing.")
    lock_window = serializers.BooleanField()
    window = serializers.IntegerField()
    schema_version = serializers.IntegerField()
    events_counted = serializers.IntegerField(help_text="Events inside the window.")
    warnings = serializers.ListField(child=serializers.CharField())

    def to_representation(self, answer):
        value = answer.value
        return {"fine": value.fine, "coarse": value.coarse, "lock_window": value.lock_window,
                "window": value.window, "schema_version": answer.schema_version,
                "events_counted": answer.events_counted, "warnings": answer.warnings}


# --- The SKAdNetwork report -------------------------------------------------------------------

class FineValueOutput(serializers.Serializer):
    value = serializers.IntegerField()
    postbacks = serializers.IntegerField()


class CoarseValuesOutput(serializers.Serializer):
    low = serializers.IntegerField()
    medium = serializers.IntegerField()
    high = serializers.IntegerField()


class SkanRowOutput(serializers.Serializer):
    date = serializers.DateField(help_text="UTC day the postbacks arrived.")
    window = serializers.IntegerField(help_text="Postback sequence index: 0, 1, 2.")
    media_source = serializers.CharField(help_text="The ad network's name (skan's mapping).")
    ad_network_id = serializers.CharField()
    source_identifier = serializers.CharField(help_text="Before 4.0: the campaign id.")
    postbacks = serializers.IntegerField()
    installs = serializers.IntegerField(help_text="Window-0 winning install postbacks.")
    null_values = serializers.IntegerField()
    null_value_share = percent(help_text="null_values / postbacks x 100.")
    fine_values = FineValueOutput(many=True, source="fine_value_list")
    coarse_values = CoarseValuesOutput(source="coarse_value_counts")
    decoded = serializers.IntegerField(help_text="Postbacks whose value a rule gives.")
    undecoded = serializers.IntegerField(help_text=(
        "Postbacks with a value no rule of the active version gives."))
    estimated_revenue = money(source="estimated_revenue.amount")
    unconverted_estimated_revenue = unconverted("estimated_revenue")
    redownloads = serializers.IntegerField()


class SkanOutput(HeaderOutput):
    rows = SkanRowOutput(many=True, source="report")
