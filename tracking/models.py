"""Clicks, installs, re-engagements and in-app events (spec: Click record, Attribution result,
In-app event object). Storage design: docs/decisions.md, "Click storage".

Clicks live twice: `Click` is the hot store the waterfall searches (7 days, pruned daily, indexed
for the device-id and fingerprint lookups) and `ClickArchive` keeps every click for analytics.
Both rows are written by one statement on PostgreSQL. Install and Event rows refer to clicks by
id only, because a hot click is deleted after the window.

On PostgreSQL both click tables and events are partitioned by day (migration 0009,
tracking/partitions.py): their primary key there is (id, time column), ids stay unique by
construction, and Django still knows `id` as the key. A client event id is therefore made unique
by `EventKey`, not by a constraint on the partitioned events.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils.timezone import now

from attribution_site.ids import uuid7


class ClickFields(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)
    # The hot tables' app references are kept by the application, not by the database, and
    # have no single-column index (docs/decisions.md, "Hot tables without database foreign
    # keys"): every composite index starts with the app.
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+",
                            db_index=False, db_constraint=False)
    campaign_id = models.CharField(max_length=255, blank=True, default="")
    media_source = models.CharField(max_length=255, blank=True, default="")
    adset = models.CharField(max_length=255, blank=True, default="")
    ad = models.CharField(max_length=255, blank=True, default="")
    advertising_id = models.CharField(max_length=64, null=True, blank=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    ip_prefix = models.CharField(max_length=48, blank=True, default="")
    user_agent = models.TextField(blank=True, default="")
    accept_language = models.CharField(max_length=255, blank=True, default="")
    os_family = models.CharField(max_length=32, blank=True, default="")
    os_version = models.CharField(max_length=32, blank=True, default="")
    device_model = models.CharField(max_length=128, blank=True, default="")
    fingerprint = models.CharField(max_length=64, blank=True, default="")
    clicked_at = models.DateTimeField(default=now)
    # The short link followed (links.Link), when the click came through one: an id only, like
    # the app, so the hot tables keep no foreign keys.
    link_id = models.UUIDField(null=True, blank=True)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"click {self.id} ({self.media_source or 'no source'})"


class Click(ClickFields):
    class Meta:
        indexes = [
            models.Index(fields=["app", "advertising_id", "clicked_at"], name="click_device_idx"),
            models.Index(fields=["app", "ip_prefix", "clicked_at"], name="click_network_idx"),
            models.Index(fields=["clicked_at"], name="click_age_idx"),
        ]


class ClickArchive(ClickFields):
    class Meta:
        indexes = [
            models.Index(fields=["app", "clicked_at"], name="click_archive_app_time_idx"),
            models.Index(fields=["link_id", "clicked_at"], name="click_archive_link_time_idx",
                         condition=models.Q(link_id__isnull=False)),
        ]


class MatchType(models.TextChoices):
    INSTALL_REFERRER = "install_referrer", "Install referrer"
    DEVICE_ID = "device_id", "Device id"
    FINGERPRINT = "fingerprint", "Fingerprint"
    APPLE_ADS = "apple_ads", "Apple Ads"  # re-attributed after the waterfall (docs/apple.md)
    # Re-attributed on Google's claim (docs/networks.md, "Google Ads")
    GOOGLE_ADS = "google_ads", "Google Ads"
    # A platform saw its ad viewed, not clicked (Meta's install referrer; docs/networks.md).
    VIEW_THROUGH = "view_through", "View-through"
    # A web visit's install (web/attribution.py; docs/web.md): the click the redirector named
    # in the landing URL, the page URL's utm_source, or an ad network's click parameter.
    CLICK_ID = "click_id", "Click id (web)"
    UTM = "utm", "UTM parameters (web)"
    CLICK_PARAM = "click_param", "Click parameter (web)"
    ORGANIC = "organic", "Organic"


class Install(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+",
                            db_index=False, db_constraint=False)
    device_id = models.CharField(max_length=64, null=True, blank=True)
    # The app's own id for its user (AppsFlyer's CUID), when the SDK sent one: what an erasure
    # or access request by customer id finds. No index: only those requests search by it.
    customer_user_id = models.CharField(max_length=255, null=True, blank=True)
    platform = models.CharField(max_length=16)
    sdk_version = models.CharField(max_length=64)
    install_referrer = models.TextField(blank=True, default="")
    screen_resolution = models.CharField(max_length=32, blank=True, default="")
    timezone = models.CharField(max_length=64, blank=True, default="")
    language = models.CharField(max_length=64, blank=True, default="")
    os_version = models.CharField(max_length=64, blank=True, default="")
    device_model = models.CharField(max_length=128, blank=True, default="")
    ip = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.TextField(blank=True, default="")
    # A database default too: a column added to a table that other writers (raw SQL, an older
    # process during a rolling deploy) insert into must not make their rows fail.
    att_status = models.CharField(max_length=16, blank=True, default="", db_default="")
    installed_at = models.DateTimeField(default=now)
    match_type = models.CharField(max_length=32, choices=MatchType.choices)
    confidence = models.FloatField(default=0)
    is_organic = models.BooleanField(default=True)
    media_source = models.CharField(max_length=255, null=True, blank=True)
    campaign_id = models.CharField(max_length=255, null=True, blank=True)
    adset = models.CharField(max_length=255, null=True, blank=True)
    ad = models.CharField(max_length=255, null=True, blank=True)
    click_id = models.UUIDField(null=True, blank=True)
    attributed_touch_time = models.DateTimeField(null=True, blank=True)
    # The short link of the winning click, and the deep link it carried when the install was
    # attributed ({value, params, link_id}): what the app's first launch opens, the same on
    # every repeat of the install call whatever happens to the link later.
    link_id = models.UUIDField(null=True, blank=True)
    deep_link = models.JSONField(null=True, blank=True)
    # Why this verdict: method, score, matched factors, candidates and why each lost.
    decision = models.JSONField(default=dict)
    # What a self-attributing platform's referrer said when it won (docs/networks.md):
    # {platform, origin, touch, campaign: every id and name it gave}; null otherwise.
    platform_metadata = models.JSONField(null=True, blank=True)
    # The fraud rules' verdict (fraud/verdict.py): clean | flagged | blocked | post_attribution,
    # and the reasons [{reason, value, sub_reason}]. A blocked install is never credited.
    fraud_status = models.CharField(max_length=16, default="clean", db_default="clean")
    fraud_reasons = models.JSONField(default=list, db_default=[])

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["app", "device_id"], name="install_unique_device",
                                    condition=models.Q(device_id__isnull=False)),
        ]
        indexes = [
            models.Index(fields=["app", "installed_at"], name="install_app_time_idx"),
            models.Index(fields=["link_id", "installed_at"], name="install_link_time_idx",
                         condition=models.Q(link_id__isnull=False)),
        ]

    def __str__(self) -> str:
        return f"install {self.id} ({self.match_type})"


class CampaignName(models.Model):
    """A name a platform gave one of its campaigns (Meta's decrypted referrer; docs/networks.md,
    "Reports"), so reports can label the campaign ids they count. One row per name ever seen:
    written with the install that brought it, a repeat skipped by the unique constraint, and
    the newest row of a campaign is its name now (a renamed campaign reads as renamed)."""

    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+",
                            db_index=False, db_constraint=False)
    media_source = models.CharField(max_length=255)
    campaign_id = models.CharField(max_length=255)
    name = models.CharField(max_length=255)
    first_seen_at = models.DateTimeField(default=now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["app", "media_source", "campaign_id", "name"],
                                    name="campaign_name_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.media_source} / {self.campaign_id}: {self.name}"


class Reengagement(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+")
    install = models.ForeignKey(Install, on_delete=models.CASCADE,
                                related_name="reengagements")
    click_id = models.UUIDField()
    media_source = models.CharField(max_length=255, null=True, blank=True)
    campaign_id = models.CharField(max_length=255, null=True, blank=True)
    clicked_at = models.DateTimeField()
    reengaged_at = models.DateTimeField(default=now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["install", "click_id"],
                                    name="reengagement_unique_click"),
        ]
        indexes = [models.Index(fields=["app", "reengaged_at"], name="reengagement_time_idx")]

    def __str__(self) -> str:
        return f"re-engagement {self.id}"


class Event(models.Model):
    id = models.BigAutoField(primary_key=True)
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+",
                            db_index=False, db_constraint=False)
    install = models.ForeignKey(Install, null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="events", db_index=False, db_constraint=False)
    device_id = models.CharField(max_length=64, null=True, blank=True)
    event_id = models.CharField(max_length=128, null=True, blank=True)
    event_name = models.CharField(max_length=128)
    properties = models.JSONField(default=dict)
    session_id = models.UUIDField()
    occurred_at = models.DateTimeField()
    received_at = models.DateTimeField(default=now)
    revenue_amount = models.DecimalField(max_digits=18, decimal_places=6, null=True, blank=True)
    revenue_currency = models.CharField(max_length=3, null=True, blank=True)
    # An event of a blocked install: stored, but left out of revenue, ROAS and postbacks.
    is_blocked = models.BooleanField(default=False, db_default=False)

    class Meta:
        indexes = [
            models.Index(fields=["app", "occurred_at"], name="event_app_time_idx"),
            models.Index(fields=["install", "occurred_at"], name="event_install_time_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.event_name} #{self.id}"


class EventKey(models.Model):
    """A client event id an app's events have used: their idempotency key, claimed in the
    transaction that stores the event. Not partitioned, so one key covers every day an event
    (or its retry) may arrive on (docs/decisions.md, "Event ids across day partitions")."""

    pk = models.CompositePrimaryKey("app", "event_id")
    # Like the events' own: the key's index starts with the app, which serves the cascade.
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+",
                            db_index=False, db_constraint=False)
    event_id = models.CharField(max_length=128)

    def __str__(self) -> str:
        return f"event id {self.event_id}"
