"""Query parameters and response shapes of the Analytics endpoints and the cost import (spec:
Analytics endpoints; Errors).

This is the edge where money is rounded: to cents, half up, once, from exact sums. Rates are
percentages with two decimals; credited installs keep four. A ratio whose denominator is zero
or unknown is null. `data.kpis` and `data.timeSeries` are the spec's names; every other field
name is ours, in snake_case, and listed in docs/metrics.md.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from rest_framework import serializers

from analytics.services import CostRow, duplicate_keys
from analytics.touch_credit import DEFAULT_MODEL, MODELS
from attribution_site.api.fields import (
    StrictCharField,
    StrictListField,
    StrictSerializer,
    StrictUUIDField,
)
from attribution_site.currencies import NOT_A_CURRENCY, currency_code
from fraud.flood import BUCKETS

EXPORT_TYPES = ("installs", "events", "revenue", "blocked_installs")
COST_GROUPINGS = ("media_source", "campaign", "adset", "ad", "day")  # cost_report.GROUPINGS
COST_SOURCES = ("pull", "csv", "mixed")
MAX_COST_ROWS = 10_000
REQUIRED = {"required": "This parameter is required."}
# The SDK's event timestamps start in 2000 (docs/decisions.md, Events); nothing is older.
FIRST_DAY, LAST_DAY = date(2000, 1, 1), date(2099, 12, 31)


# --- Query parameters -------------------------------------------------------------------------

class DayParameter(serializers.Field):
    """An ISO 8601 date or date-time, reduced to its UTC calendar day (no offset means UTC)."""

    default_error_messages = {
        "invalid": "Must be an ISO 8601 date (YYYY-MM-DD) or date-time "
                   "(YYYY-MM-DDTHH:MM:SSZ).",
        "out_of_range": f"Must be between {FIRST_DAY} and {LAST_DAY}.",
        **REQUIRED,
    }

    def to_internal_value(self, data) -> date:
        if not isinstance(data, str):
            self.fail("invalid")
        try:
            moment = datetime.fromisoformat(data.strip())
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
            day = moment.astimezone(UTC).date()
        except ValueError:
            self.fail("invalid")
        except OverflowError:  # year 1 or 9999 pushed past the calendar by an offset
            self.fail("out_of_range")
        if not FIRST_DAY <= day <= LAST_DAY:
            self.fail("out_of_range")
        return day

    def to_representation(self, value):
        return value.isoformat()


class PeriodQuery(serializers.Serializer):
    app_id = serializers.UUIDField(error_messages={**REQUIRED, "invalid": "Must be a UUID."})
    start_date = DayParameter()
    end_date = DayParameter()

    def validate(self, attrs):
        start, end = attrs["start_date"], attrs["end_date"]
        if end < start:
            raise serializers.ValidationError({"end_date": ["Must not be before start_date."]})
        longest = settings.ANALYTICS_MAX_RANGE_DAYS
        if (end - start).days + 1 > longest:
            raise serializers.ValidationError({"end_date": [
                f"The range may cover at most {longest} days (start and end included)."]})
        return attrs


class AttributionQuery(PeriodQuery):
    model = serializers.ChoiceField(choices=MODELS, required=False, default=DEFAULT_MODEL,
                                    error_messages={"invalid_choice":
                                                    f"Must be one of {', '.join(MODELS)}."})


class CostQuery(PeriodQuery):
    group_by = serializers.ChoiceField(
        choices=COST_GROUPINGS, required=False, default="campaign",
        error_messages={"invalid_choice": f"Must be one of {', '.join(COST_GROUPINGS)}."})


class ExportQuery(PeriodQuery):
    type = serializers.ChoiceField(choices=EXPORT_TYPES, error_messages={
        **REQUIRED, "invalid_choice": f"Must be one of {', '.join(EXPORT_TYPES)}."})


# --- Cost import ------------------------------------------------------------------------------

class CostRowInput(StrictSerializer):
    date = StrictCharField()
    media_source = StrictCharField(max_length=255)
    campaign_id = StrictCharField(max_length=255, required=False, allow_blank=True, default="")
    cost = serializers.DecimalField(max_digits=24, decimal_places=6, min_value=0)
    currency = StrictCharField()

    def validate_date(self, value: str) -> date:
        try:
            if len(value) != 10:
                raise ValueError(value)
            return date.fromisoformat(value)
        except ValueError:
            raise serializers.ValidationError("Must be a date as YYYY-MM-DD.") from None

    def validate_currency(self, value: str) -> str:
        code = currency_code(value)
        if code is None:
            raise serializers.ValidationError(NOT_A_CURRENCY)
        return code

    def validate_media_source(self, value: str) -> str:
        value = value.strip()
        if not value:
            raise serializers.ValidationError("This field may not be blank.")
        return value


class CostImportInput(StrictSerializer):
    app_id = StrictUUIDField(message="Must be a UUID.", as_text=True)
    rows = StrictListField(child=CostRowInput(), allow_empty=False, max_length=MAX_COST_ROWS)

    def validate_rows(self, rows: list[dict]) -> list[CostRow]:
        parsed = [CostRow(day=r["date"], media_source=r["media_source"],
                          campaign_id=r["campaign_id"].strip(), cost=r["cost"],
                          currency=r["currency"]) for r in rows]
        repeats = duplicate_keys(parsed)
        if repeats:
            raise serializers.ValidationError([
                f"Row {index} repeats the date, media_source and campaign_id of row {first}."
                for index, first in repeats[:20]])
        return parsed


class ShadowedRowOutput(serializers.Serializer):
    """One (date, media_source, campaign_id) key; read from the tuple itself."""

    date = serializers.DateField()
    media_source = serializers.CharField()
    campaign_id = serializers.CharField()

    def to_representation(self, key):
        day, media_source, campaign_id = key
        return {"date": day.isoformat(), "media_source": media_source,
                "campaign_id": campaign_id}


class CostImportOutput(serializers.Serializer):
    rows = serializers.IntegerField(help_text="Rows received.")
    created = serializers.IntegerField(help_text="Keys that had no cost before.")
    updated = serializers.IntegerField(help_text="Keys whose cost was replaced.")
    shadowed = serializers.IntegerField(source="shadowed_count", help_text=(
        "Rows stored but not counted: a network's pulled spend covers their day, media source "
        "and campaign (a row without campaign: any pulled spend of its day and media source)."))
    shadowed_rows = ShadowedRowOutput(many=True, source="shadowed_first", help_text=(
        "The first 100 shadowed rows."))


# --- Responses --------------------------------------------------------------------------------

def money(**kwargs) -> serializers.DecimalField:
    return serializers.DecimalField(max_digits=None, decimal_places=2, coerce_to_string=False,
                                    rounding=ROUND_HALF_UP, **kwargs)


def percent(**kwargs) -> serializers.DecimalField:
    return serializers.DecimalField(max_digits=None, decimal_places=2, coerce_to_string=False,
                                    rounding=ROUND_HALF_UP, allow_null=True, **kwargs)


class KpiNumber(serializers.DecimalField):
    """A dashboard KPI, which the API reference types as a number: a ratio with nothing to
    divide by is 0 there (docs/analytics.md, "Ratios with nothing to divide by"), never null;
    `cost_covered_installs` and `total_clicks` say when it is 0 for want of cost or clicks."""

    def __init__(self, **kwargs):
        super().__init__(max_digits=None, decimal_places=2, coerce_to_string=False,
                         rounding=ROUND_HALF_UP, **kwargs)

    def get_attribute(self, instance):
        value = super().get_attribute(instance)
        return Decimal(0) if value is None else value


class UnconvertedOutput(serializers.Serializer):
    currency = serializers.CharField(help_text="ISO 4217 code with no usable rate.")
    amount = money(help_text="Sum in that currency, not included in converted figures.")


def unconverted(source: str) -> UnconvertedOutput:
    return UnconvertedOutput(many=True, source=f"{source}.unconverted_list")


class HeaderOutput(serializers.Serializer):
    """Fields every analytics response starts with."""

    app_id = serializers.UUIDField(source="header.app_id")
    start_date = serializers.DateField(source="header.start")
    end_date = serializers.DateField(source="header.end", help_text="Inclusive.")
    timezone = serializers.CharField(source="header.timezone",
                                     help_text="Always UTC: days are UTC calendar days.")
    currency = serializers.CharField(source="header.currency",
                                     help_text="Report currency of every money figure.")
    data_through = serializers.DateTimeField(
        source="header.data_through", allow_null=True,
        help_text="Rollups include data recorded up to this instant; null while rebuilding.")


class KpisOutput(serializers.Serializer):
    total_installs = serializers.IntegerField()
    paid_installs = serializers.IntegerField()
    organic_installs = serializers.IntegerField()
    total_revenue = money(source="total_revenue.amount")
    average_cpi = KpiNumber(help_text=(
        "Cost / paid installs, over the campaigns whose whole cost converted to the report "
        "currency (cost_covered_installs). 0 when no such campaign (cost_covered_installs 0)."))
    conversion_rate = KpiNumber(help_text="Paid installs / clicks x 100; 0 without clicks.")
    total_clicks = serializers.IntegerField()
    total_cost = money(source="total_cost.amount")
    roas = percent(source="covered.roas", help_text=(
        "Revenue of the covered campaigns' installs / their cost x 100. Null when no campaign's "
        "cost converted."))
    cost_covered_installs = serializers.IntegerField(source="covered.installs", help_text=(
        "The paid installs average_cpi and roas cover: those of campaigns whose whole cost "
        "converted to the report currency."))
    blocked_installs = serializers.IntegerField(help_text=(
        "Installs the fraud rules refused: in no other install count, their events' revenue "
        "left out (docs/metrics.md, \"What counts\")."))
    post_attribution_installs = serializers.IntegerField(help_text=(
        "Installs taken back after their source was found flooding clicks: counted apart "
        "like blocked ones."))


class DayOutput(serializers.Serializer):
    date = serializers.DateField()
    installs = serializers.IntegerField()
    paid_installs = serializers.IntegerField()
    organic_installs = serializers.IntegerField()
    revenue = money(source="revenue.amount")


class DashboardOutput(HeaderOutput):
    kpis = KpisOutput(source="report")
    timeSeries = DayOutput(many=True, source="report.series")  # the spec's name, not snake_case
    unconverted_revenue = unconverted("report.total_revenue")
    unconverted_cost = unconverted("report.total_cost")


class SourceOutput(serializers.Serializer):
    media_source = serializers.CharField(allow_null=True,
                                         help_text='"organic" for organic installs.')
    source_type = serializers.CharField(help_text="paid, organic or no_install.")
    installs = serializers.IntegerField()
    clicks = serializers.IntegerField()
    conversion_rate = percent()
    revenue = money(source="revenue.amount")
    cost = money(source="cost.amount", allow_null=True)
    cost_source = serializers.ChoiceField(choices=COST_SOURCES, allow_null=True, help_text=(
        "Where the cost came from: pull (a network's reporting API), csv (an upload), mixed, "
        "or null without cost."))
    cpi = money(allow_null=True)
    roas = percent()
    unconverted_revenue = unconverted("revenue")
    unconverted_cost = unconverted("cost")
    blocked_installs = serializers.IntegerField(help_text=(
        "Installs whose click from this source the fraud rules refused: not in installs."))
    post_attribution_installs = serializers.IntegerField(help_text=(
        "Installs taken back after this source was found flooding clicks: not in installs."))

    def to_representation(self, instance):
        body = super().to_representation(instance)
        if not instance.cost.known:
            body["cost"] = None  # nothing imported (or convertible): unknown, not zero
        return body


class SourcesOutput(HeaderOutput):
    sources = SourceOutput(many=True, source="report")


class CampaignOutput(SourceOutput):
    campaign_id = serializers.CharField()
    campaign_name = serializers.CharField(allow_null=True, help_text=(
        "The campaign's name as its platform gave it (Meta's install referrer), or null."))

    def to_representation(self, instance):
        body = super().to_representation(instance)
        return {"media_source": body.pop("media_source"),
                "campaign_id": body.pop("campaign_id"),
                "campaign_name": body.pop("campaign_name"), **body}


class CampaignsOutput(HeaderOutput):
    campaigns = CampaignOutput(many=True, source="report")


class CohortOutput(serializers.Serializer):
    date = serializers.DateField()
    installs = serializers.IntegerField()
    d1 = percent()
    d7 = percent()
    d30 = percent()
    d1_retained = serializers.IntegerField(allow_null=True)
    d7_retained = serializers.IntegerField(allow_null=True)
    d30_retained = serializers.IntegerField(allow_null=True)

    def to_representation(self, cohort):
        body = {"date": cohort.date.isoformat(), "installs": cohort.installs}
        for n in (1, 7, 30):
            rate = cohort.rate(n)
            body[f"d{n}"] = self.fields[f"d{n}"].to_representation(rate) if rate is not None \
                else None
            body[f"d{n}_retained"] = cohort.retained[n]
        return body


class RetentionSummaryOutput(serializers.Serializer):
    installs = serializers.IntegerField()
    d1 = percent()
    d7 = percent()
    d30 = percent()

    def to_representation(self, retention):
        body = {"installs": retention.installs}
        for n in (1, 7, 30):
            rate = retention.rate(n)
            body[f"d{n}"] = self.fields[f"d{n}"].to_representation(rate) if rate is not None \
                else None
        return body


class RetentionOutput(HeaderOutput):
    cohorts = CohortOutput(many=True, source="report.cohorts")
    summary = RetentionSummaryOutput(source="report", help_text=(
        "Dn over the cohorts whose day n is over: retained / their installs x 100."))


class SourceValueOutput(serializers.Serializer):
    media_source = serializers.CharField()
    source_type = serializers.CharField()
    installs = serializers.IntegerField()
    cohort_revenue = money(source="cohort_revenue.amount",
                           help_text="Revenue to date of these installs.")
    ltv = money(allow_null=True)
    unconverted_cohort_revenue = unconverted("cohort_revenue")
    cost = money(source="cost.amount", allow_null=True, help_text=(
        "Spend of the range that counts (pulled over uploaded) for this source; null: none."))
    roas = percent(help_text="Cohort ROAS: cohort_revenue / cost x 100, to date.")
    unconverted_cost = unconverted("cost")

    def to_representation(self, instance):
        body = super().to_representation(instance)
        if not instance.cost.known:
            body["cost"] = None  # unknown, not zero
        return body


class RevenueOutput(HeaderOutput):
    total_revenue = money(source="report.total_revenue.amount")
    gross_revenue = money(source="report.gross_revenue.amount")
    refunds = money(source="report.refunds.amount", help_text="Negative amounts; included in "
                    "total_revenue.")
    revenue_events = serializers.IntegerField(source="report.revenue_events")
    installs = serializers.IntegerField(source="report.installs")
    arpu = money(source="report.arpu", allow_null=True)
    cohort_revenue = money(source="report.cohort_revenue.amount")
    ltv = money(source="report.ltv", allow_null=True)
    unconverted_revenue = unconverted("report.total_revenue")
    unconverted_cohort_revenue = unconverted("report.cohort_revenue")
    by_source = SourceValueOutput(many=True, source="report.by_source")
    blocked_revenue = money(source="report.blocked_revenue.amount", help_text=(
        "Revenue of the range's events of blocked installs: in no other revenue figure "
        "(docs/metrics.md, \"What counts\")."))
    post_attribution_revenue = money(source="report.post_attribution_revenue.amount",
                                     help_text=(
        "Revenue of the range's events of installs taken back after a click-flood finding: "
        "in no other revenue figure."))
    unconverted_blocked_revenue = unconverted("report.blocked_revenue")
    unconverted_post_attribution_revenue = unconverted("report.post_attribution_revenue")


class CreditedOutput(serializers.Serializer):
    media_source = serializers.CharField()
    campaign_id = serializers.CharField()
    credited_installs = serializers.DecimalField(max_digits=None, decimal_places=4,
                                                 coerce_to_string=False, rounding=ROUND_HALF_UP)
    credited_revenue = money(source="credited_revenue.amount")
    unconverted_revenue = unconverted("credited_revenue")


class AttributionOutput(HeaderOutput):
    model = serializers.CharField(source="report.model")
    half_life_hours = serializers.IntegerField(source="report.half_life_hours", allow_null=True)
    window_days = serializers.IntegerField(source="report.window_days")
    attributed_installs = serializers.IntegerField(source="report.attributed_installs")
    organic_installs = serializers.IntegerField(source="report.organic_installs")
    credited_installs = serializers.DecimalField(
        source="report.credited_installs", max_digits=None, decimal_places=4,
        coerce_to_string=False, rounding=ROUND_HALF_UP)
    credited_revenue = money(source="report.credited_revenue.amount")
    unconverted_revenue = unconverted("report.credited_revenue")
    rows = CreditedOutput(many=True, source="report.rows")


# --- Fraud ------------------------------------------------------------------------------------

class ReasonCountOutput(serializers.Serializer):
    reason = serializers.CharField(help_text="A reason code (docs/fraud.md): ctit_anomalies...")
    status = serializers.CharField(help_text="flagged, blocked or post_attribution.")
    installs = serializers.IntegerField()


class ClickReasonOutput(serializers.Serializer):
    reason = serializers.CharField(help_text="click_flood or bots.")
    mode = serializers.CharField(help_text="block or flag.")
    clicks = serializers.IntegerField()


class CtitBucketOutput(serializers.Serializer):
    bucket = serializers.CharField(help_text="0-10s, 10-60s, 1-10min, 10-60min, 1-24h, 1-7d.")
    from_seconds = serializers.IntegerField(help_text="Included.")
    to_seconds = serializers.IntegerField(help_text="Excluded.")
    installs = serializers.IntegerField()


class FraudFiguresOutput(serializers.Serializer):
    """One row's figures: installs of the range by fraud status and reason, and its CTIT."""

    installs = serializers.IntegerField(help_text="Every install, whatever its status.")
    clean_installs = serializers.IntegerField()
    flagged_installs = serializers.IntegerField(help_text="Credited and marked.")
    blocked_installs = serializers.IntegerField(help_text="Stored, never credited.")
    post_attribution_installs = serializers.IntegerField(help_text=(
        "Credited, then taken out of the paid installs when the source was found flooding."))
    blocked_clicks = serializers.IntegerField(help_text=(
        "Clicks of a source after a click-flood block, to the end of that UTC day, and bot "
        "clicks the bots rule kept out (block mode)."))
    clicks_by_reason = ClickReasonOutput(many=True, help_text=(
        "Clicks by rule and mode: click_flood (block) and bots (block: never recorded; flag: "
        "recorded and counted)."))
    blocked_events = serializers.IntegerField(help_text="Events of blocked installs.")
    by_reason = ReasonCountOutput(many=True)
    ctit_histogram = CtitBucketOutput(many=True, help_text=(
        "Installs with a click by click-to-install time (installed_at - the click's time)."))

    def to_representation(self, row):
        installs = row.installs
        return {
            "installs": row.total_installs,
            "clean_installs": installs["clean"],
            "flagged_installs": installs["flagged"],
            "blocked_installs": installs["blocked"],
            "post_attribution_installs": installs["post_attribution"],
            "blocked_clicks": row.blocked_clicks,
            "clicks_by_reason": [{"reason": reason, "mode": mode, "clicks": n}
                                 for (reason, mode), n in sorted(row.clicks_by_reason.items())],
            "blocked_events": row.blocked_events,
            "by_reason": [{"reason": reason, "status": status, "installs": n}
                          for (status, reason), n in sorted(row.by_reason.items())],
            "ctit_histogram": [{"bucket": b.label, "from_seconds": b.from_seconds,
                                "to_seconds": b.to_seconds, "installs": n}
                               for b, n in zip(BUCKETS, row.histogram, strict=True)],
        }


class FraudSourceOutput(FraudFiguresOutput):
    media_source = serializers.CharField(allow_null=True, help_text=(
        "The source credited, or whose click was refused; null for organic installs."))

    def to_representation(self, row):
        return {"media_source": row.media_source or None, **super().to_representation(row)}


class FraudCampaignOutput(FraudFiguresOutput):
    media_source = serializers.CharField(allow_null=True)
    campaign_id = serializers.CharField()

    def to_representation(self, row):
        return {"media_source": row.media_source or None, "campaign_id": row.campaign_id,
                **super().to_representation(row)}


class RefusedRequestsOutput(serializers.Serializer):
    total = serializers.IntegerField(help_text=(
        "SDK requests refused for their signature (enforce): nothing of them is stored."))
    by_sub_reason = serializers.DictField(child=serializers.IntegerField(), help_text=(
        "missing, wrong or expired."))

    def to_representation(self, counts):
        return {"total": sum(counts.values()), "by_sub_reason": dict(sorted(counts.items()))}


class SourceFlagOutput(serializers.Serializer):
    media_source = serializers.CharField()
    day = serializers.DateField()
    mode = serializers.CharField(help_text="block or flag.")
    detected_at = serializers.DateTimeField()
    stats = serializers.DictField(help_text=(
        "The figures behind the finding: installs, clicks, conversion_rate, norm, "
        "share_after_day, density_ratio, histogram, explanation."))


class FraudReportOutput(HeaderOutput):
    totals = FraudFiguresOutput(source="report.totals")
    refused_requests = RefusedRequestsOutput(source="report.refused_requests")
    sources = FraudSourceOutput(many=True, source="report.sources")
    campaigns = FraudCampaignOutput(many=True, source="report.campaigns")
    click_flood_flags = SourceFlagOutput(many=True, source="report.flags")


# --- Cost report ------------------------------------------------------------------------------

IDENTITY = ("media_source", "campaign_id", "adset_id", "ad_id", "date")
NAMED_BY = {"media_source": {"media_source"}, "campaign": {"media_source", "campaign_id"},
            "adset": {"media_source", "campaign_id", "adset_id"},
            "ad": {"media_source", "campaign_id", "adset_id", "ad_id"}, "day": {"date"}}


class CostLineOutput(serializers.Serializer):
    """One row of the cost report (or its total); fields naming another grouping are left
    out, and the total has none."""

    media_source = serializers.CharField(required=False)
    campaign_id = serializers.CharField(required=False)
    adset_id = serializers.CharField(required=False)
    ad_id = serializers.CharField(required=False)
    date = serializers.DateField(source="day", required=False)
    spend = money(source="spend.amount", allow_null=True, help_text=(
        "In the report currency; null when none of it converted."))
    impressions = serializers.IntegerField(allow_null=True, help_text=(
        "As the network counts them; null for uploaded spend."))
    clicks = serializers.IntegerField(allow_null=True, help_text=(
        "As the network counts them; null for uploaded spend."))
    installs = serializers.IntegerField(allow_null=True, help_text=(
        "Paid installs of the campaigns with spend; null by ad set or ad."))
    cpi = money(allow_null=True)
    revenue = money(source="revenue.amount", allow_null=True, help_text=(
        "Revenue of those installs' events in the range; null by ad set or ad."))
    roas = percent()
    skan_installs = serializers.IntegerField(allow_null=True, help_text=(
        "iOS: SKAdNetwork and AdAttributionKit installs of the postbacks arrived in the range "
        "whose source identifier is mapped to this campaign (PUT /apps/{id}/skan/"
        "campaign-mappings); null by day, ad set or ad, or without postbacks."))
    skan_cpi = money(allow_null=True, help_text="Spend / skan_installs.")
    skan_revenue = money(source="skan_revenue.amount", allow_null=True, help_text=(
        "Their conversion-schema revenue (estimated from conversion values)."))
    skan_roas = percent()
    cost_source = serializers.ChoiceField(choices=COST_SOURCES, allow_null=True)
    unconverted_spend = unconverted("spend")

    def to_representation(self, line):
        body = super().to_representation(line)
        if not line.spend.known:
            body["spend"] = None  # unknown, not zero
        report = self.root.instance.report
        named = set() if line is report.total else NAMED_BY[report.group_by]
        return {name: value for name, value in body.items()
                if name not in IDENTITY or name in named}


class CostReportOutput(HeaderOutput):
    group_by = serializers.ChoiceField(choices=COST_GROUPINGS, source="report.group_by")
    rows = CostLineOutput(many=True, source="report.rows")
    total = CostLineOutput(source="report.total", help_text="Over every row.")
    skan_unmatched_installs = serializers.IntegerField(
        source="report.skan_unmatched_installs", allow_null=True, help_text=(
            "SKAN installs of the range not beside any row: their source identifier is mapped "
            "to no campaign, or to one without spend. Null where skan_installs are."))
