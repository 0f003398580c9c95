"""Analytics storage: what operators enter (cost rows, currency rates, an app's report currency)
and the daily rollups the Analytics endpoints read (spec: Analytics endpoints).

The rollups are derived data: sums over tracking's rows for one (app, day), which
`analytics.rollups` adds to as rows commit and can rebuild whole for any day. They never hold
converted money: amounts stay in the currency they arrived in and are converted when read, so a
corrected rate applies at once. Definitions of
every figure: docs/metrics.md. Design and lag: docs/analytics.md.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from attribution_site.currencies import currency_code

MONEY = {"max_digits": 24, "decimal_places": 6}  # the precision of Event.revenue_amount
WEIGHT = {"max_digits": 11, "decimal_places": 10}  # one install's share of a touchpoint
WEIGHT_SUM = {"max_digits": 24, "decimal_places": 10}
CREDITED_MONEY = {"max_digits": 30, "decimal_places": 10}


def validate_currency(value: str) -> None:
    """Admin forms store what the operator typed, so the code must already be in capitals."""
    if value != currency_code(value):
        raise ValidationError("An ISO 4217 code in capitals, such as USD.")


def _app():
    # db_index=False: every table below has a composite index that starts with the app.
    return models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+",
                             db_index=False)


class SourceType(models.TextChoices):
    """Who an install, or the revenue of an event, is credited to."""

    PAID = "paid"  # attributed to a click by the waterfall
    ORGANIC = "organic"  # no matching click
    NO_INSTALL = "no_install"  # revenue of an event that is linked to no install
    # Counted apart (docs/fraud.md, "What other reports count"): never paid, their events'
    # revenue out of revenue and ROAS. Under the refused (or caught) source and campaign.
    BLOCKED = "blocked"  # the fraud rules refused the install's click
    POST_ATTRIBUTION = "post_attribution"  # credited, then its source was caught flooding


# --- Operator input ---------------------------------------------------------------------------

class AppReportSettings(models.Model):
    """The one currency an app's analytics are reported in; absent means the default (USD)."""

    app = models.OneToOneField("apps_registry.App", on_delete=models.CASCADE,
                               related_name="report_settings", primary_key=True)
    currency = models.CharField(max_length=3, validators=[validate_currency])

    class Meta:
        verbose_name = "app report currency"
        verbose_name_plural = "app report currencies"

    def __str__(self) -> str:
        return f"{self.app_id}: {self.currency}"


class CurrencyRate(models.Model):
    """How many units of `currency` one US dollar bought on `day` (USD itself is always 1)."""

    currency = models.CharField(max_length=3, validators=[validate_currency])
    day = models.DateField()
    units_per_usd = models.DecimalField(max_digits=24, decimal_places=10)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["currency", "day"], name="currency_rate_unique_day"),
            models.CheckConstraint(condition=models.Q(units_per_usd__gt=0),
                                   name="currency_rate_positive"),
        ]
        ordering = ["currency", "-day"]

    def __str__(self) -> str:
        return f"1 USD = {self.units_per_usd} {self.currency} on {self.day}"


class CampaignCost(models.Model):
    """Ad spend for one day, media source and campaign; a new import of the same key replaces it."""

    app = _app()
    day = models.DateField()
    media_source = models.CharField(max_length=255)
    campaign_id = models.CharField(max_length=255, blank=True, default="")
    cost = models.DecimalField(**MONEY)
    currency = models.CharField(max_length=3, validators=[validate_currency])
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["app", "day", "media_source", "campaign_id"],
                                    name="campaign_cost_unique_key"),
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.media_source}/{self.campaign_id}: {self.cost} {self.currency}"


class PulledCost(models.Model):
    """Ad spend a network's reporting API reported for one day of one ad (or ad group).

    Written only by `analytics.costs.cost_rows_replace`, which replaces one connection's rows
    for the days a pull covers. Where a pulled row and an uploaded `CampaignCost` share a day,
    media source and campaign, the pulled one counts (analytics/costs/precedence.py).
    """

    app = _app()
    # The caller's stable label of the connection that pulled it (networks' integration): the
    # scope a pull replaces. The row's source in reports is "pull".
    connection = models.CharField(max_length=64)
    media_source = models.CharField(max_length=32)
    account = models.CharField(max_length=255)  # the ad account as the network names it
    day = models.DateField()  # the ad account's day, as reported
    campaign_id = models.CharField(max_length=255)
    adset_id = models.CharField(max_length=255, blank=True, default="")
    ad_id = models.CharField(max_length=255, blank=True, default="")
    campaign_name = models.CharField(max_length=512, blank=True, default="")
    adset_name = models.CharField(max_length=512, blank=True, default="")
    ad_name = models.CharField(max_length=512, blank=True, default="")
    currency = models.CharField(max_length=3, validators=[validate_currency])
    spend = models.DecimalField(**MONEY)
    impressions = models.BigIntegerField(default=0)
    clicks = models.BigIntegerField(default=0)
    pulled_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["app", "connection", "day", "campaign_id", "adset_id", "ad_id"],
                name="pulled_cost_unique_key"),
        ]
        indexes = [models.Index(fields=["app", "day"], name="pulled_cost_app_day_idx")]

    def __str__(self) -> str:
        return f"{self.day} {self.media_source}/{self.campaign_id}/{self.ad_id}: " \
            f"{self.spend} {self.currency}"


# --- Rollup bookkeeping -----------------------------------------------------------------------

class RollupState(models.Model):
    """The single row recording how far the rollups have taken in tracking's tables."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    # tracking.changes.Watermark as JSON: what had committed when the rollups last moved on.
    watermark = models.JSONField(null=True, blank=True)
    # When that watermark was taken: every figure is complete up to then, but for queued days.
    data_through = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"rollups complete through {self.data_through}"


class RollupKind(models.IntegerChoices):
    # Rebuilt in this order: an event day reads the touchpoint weights an install day writes.
    INSTALLS = 0
    CLICKS = 1
    EVENTS = 2


class RollupDirtyDay(models.Model):
    """A day of one app whose rollups of one kind must be rebuilt (a queue, drained in order)."""

    app = _app()
    kind = models.PositiveSmallIntegerField(choices=RollupKind.choices)
    day = models.DateField()
    # Data recorded after this moment may be missing from the day's rollups until it is rebuilt.
    stale_since = models.DateTimeField(null=True, blank=True)
    marked_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["app", "kind", "day"], name="rollup_dirty_unique"),
        ]
        indexes = [models.Index(fields=["kind", "day"], name="rollup_dirty_order_idx")]

    def __str__(self) -> str:
        return f"{RollupKind(self.kind).label} of {self.app_id} on {self.day}"


# --- Rollups ----------------------------------------------------------------------------------

class Rollup(models.Model):
    app = _app()

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self._meta.verbose_name} of {self.app_id} on {self.day}"

class DailyInstallStat(Rollup):
    """Installs per install day, source type, media source and campaign."""

    day = models.DateField()
    source_type = models.CharField(max_length=16, choices=SourceType.choices)
    media_source = models.CharField(max_length=255)
    campaign_id = models.CharField(max_length=255)
    installs = models.PositiveIntegerField()

    class Meta:
        indexes = [models.Index(fields=["app", "day"], name="daily_install_app_day_idx")]


class DailyClickStat(Rollup):
    """Clicks (from the click archive) per click day, media source and campaign."""

    day = models.DateField()
    media_source = models.CharField(max_length=255)
    campaign_id = models.CharField(max_length=255)
    clicks = models.PositiveIntegerField()

    class Meta:
        indexes = [models.Index(fields=["app", "day"], name="daily_click_app_day_idx")]


class DailyRevenueStat(Rollup):
    """Revenue events per event day, in their own currency, credited to their install's source."""

    day = models.DateField()
    source_type = models.CharField(max_length=16, choices=SourceType.choices)
    media_source = models.CharField(max_length=255)
    campaign_id = models.CharField(max_length=255)
    currency = models.CharField(max_length=3)
    revenue = models.DecimalField(**MONEY)  # net: refunds included as negative amounts
    refunds = models.DecimalField(**MONEY)  # the negative part of `revenue`
    revenue_events = models.PositiveIntegerField()

    class Meta:
        indexes = [models.Index(fields=["app", "day"], name="daily_revenue_app_day_idx")]


class CohortRevenueStat(Rollup):
    """Revenue per install day (the cohort) and event day, for lifetime value by source."""

    install_day = models.DateField()
    day = models.DateField()
    source_type = models.CharField(max_length=16, choices=SourceType.choices)
    media_source = models.CharField(max_length=255)
    currency = models.CharField(max_length=3)
    revenue = models.DecimalField(**MONEY)

    class Meta:
        indexes = [
            models.Index(fields=["app", "install_day"], name="cohort_revenue_cohort_idx"),
            models.Index(fields=["app", "day"], name="cohort_revenue_day_idx"),
        ]


class DailyRetentionStat(Rollup):
    """How many installs of `cohort_day` had any event on cohort_day + `age` days."""

    cohort_day = models.DateField()
    age = models.PositiveSmallIntegerField()
    active_installs = models.PositiveIntegerField()
    # The activity day (cohort_day + age): the rollup of that event day owns this row.
    day = models.DateField()

    class Meta:
        indexes = [
            models.Index(fields=["app", "cohort_day", "age"], name="retention_cohort_idx"),
            models.Index(fields=["app", "day"], name="retention_day_idx"),
        ]


class InstallTouchpoint(Rollup):
    """One attributed install's share, under each model, for one media source and campaign.

    Per install the weights of each model add up to exactly 1, so credited installs always
    total the number of attributed installs.
    """

    install_id = models.UUIDField()
    install_day = models.DateField()
    media_source = models.CharField(max_length=255)
    campaign_id = models.CharField(max_length=255)
    touches = models.PositiveSmallIntegerField()
    last_touch = models.DecimalField(**WEIGHT)
    first_touch = models.DecimalField(**WEIGHT)
    linear = models.DecimalField(**WEIGHT)
    time_decay = models.DecimalField(**WEIGHT)

    class Meta:
        indexes = [
            models.Index(fields=["app", "install_day"], name="touchpoint_app_day_idx"),
            models.Index(fields=["install_id"], name="touchpoint_install_idx"),
        ]

    def __str__(self) -> str:
        return f"install {self.install_id}: {self.media_source}/{self.campaign_id}"


class DailyCreditStat(Rollup):
    """Credited installs per install day, media source and campaign, one column per model."""

    day = models.DateField()
    media_source = models.CharField(max_length=255)
    campaign_id = models.CharField(max_length=255)
    last_touch = models.DecimalField(**WEIGHT_SUM)
    first_touch = models.DecimalField(**WEIGHT_SUM)
    linear = models.DecimalField(**WEIGHT_SUM)
    time_decay = models.DecimalField(**WEIGHT_SUM)

    class Meta:
        indexes = [models.Index(fields=["app", "day"], name="daily_credit_app_day_idx")]


class DailyCreditedRevenueStat(Rollup):
    """Revenue per event day shared among the touchpoints of each event's install, per model."""

    day = models.DateField()
    media_source = models.CharField(max_length=255)
    campaign_id = models.CharField(max_length=255)
    currency = models.CharField(max_length=3)
    last_touch = models.DecimalField(**CREDITED_MONEY)
    first_touch = models.DecimalField(**CREDITED_MONEY)
    linear = models.DecimalField(**CREDITED_MONEY)
    time_decay = models.DecimalField(**CREDITED_MONEY)

    class Meta:
        indexes = [models.Index(fields=["app", "day"], name="daily_credit_rev_app_day_idx")]
