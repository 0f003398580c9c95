"""Web ids and their visits (docs/web.md; wire: docs/web-sdk-wire.md).

A web id is a browser's first-party id on one site (UUID v4, from the script). Its first visit
is the web app's install (tracking's Install, `device_id` = the web id); the row here keeps what
the install does not: where the visitor landed, the referring host, the visit's source as first
seen, the current attribution (its install's, or its latest re-engagement's), the customer id
the site gave (`identify`) and whether the browser sends Global Privacy Control. A visit is one
page load, stored once per `visit_id`, which makes a replayed visit harmless.
"""

from __future__ import annotations

from django.db import models
from django.utils.timezone import now

from attribution_site.ids import uuid7


class WebId(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+",
                            db_constraint=False)
    web_id = models.CharField(max_length=36)
    install_id = models.UUIDField(null=True, blank=True)  # null until its first visit
    customer_user_id = models.CharField(max_length=255, null=True, blank=True)
    landing_url = models.TextField(blank=True, default="")
    referrer_host = models.CharField(max_length=255, null=True, blank=True)
    visit_media_source = models.CharField(max_length=255, null=True, blank=True)
    visit_campaign = models.CharField(max_length=255, null=True, blank=True)
    # The attribution the script keeps (`getAttribution()`): the install's, then the latest
    # re-engagement's.
    media_source = models.CharField(max_length=255, null=True, blank=True)
    campaign_id = models.CharField(max_length=255, null=True, blank=True)
    match_type = models.CharField(max_length=32, blank=True, default="")
    is_organic = models.BooleanField(default=True)
    gpc = models.BooleanField(default=False)  # the latest visit's Global Privacy Control
    first_seen_at = models.DateTimeField(default=now)
    last_seen_at = models.DateTimeField(default=now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["app", "web_id"],
                                               name="web_id_unique_per_app")]
        verbose_name = "web id"

    def __str__(self) -> str:
        return self.web_id


class Visit(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+",
                            db_constraint=False)
    visit_id = models.UUIDField()
    web_id = models.CharField(max_length=36)
    visited_at = models.DateTimeField()  # the page load, by the browser's clock (bounded)
    received_at = models.DateTimeField(default=now)
    url = models.TextField()
    referrer_host = models.CharField(max_length=255, null=True, blank=True)
    media_source = models.CharField(max_length=255, null=True, blank=True)
    campaign_id = models.CharField(max_length=255, null=True, blank=True)
    match_type = models.CharField(max_length=32)
    is_install = models.BooleanField(default=False)
    reengagement_id = models.UUIDField(null=True, blank=True)
    gpc = models.BooleanField(default=False)
    sdk_version = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["app", "visit_id"],
                                               name="visit_unique_per_app")]
        indexes = [models.Index(fields=["app", "web_id", "visited_at"],
                                name="visit_web_id_time_idx")]

    def __str__(self) -> str:
        return f"visit {self.visit_id}"
