"""Fraud protection's tables (docs/fraud.md): each app's rule settings, the signing secrets of
API keys that sign their requests, per-source flags (written by beat's click-flood detection,
read on the request path) and the count of refused unsigned requests."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from fraud import verdict
from fraud.defaults import DEFAULTS

MODE_CHOICES = [(mode, mode) for mode in verdict.MODES]
SIGNING_CHOICES = [(mode, mode) for mode in verdict.SIGNING_MODES]


class AppFraudSettings(models.Model):
    """An app's rule modes and thresholds; an app without a row has the defaults of
    `fraud.defaults.DEFAULTS`, which these field defaults read."""

    app = models.OneToOneField("apps_registry.App", on_delete=models.CASCADE, primary_key=True,
                               related_name="+")
    engagement_injection_mode = models.CharField(max_length=8, choices=MODE_CHOICES,
                                                 default=DEFAULTS.engagement_injection_mode)
    ctit_anomalies_mode = models.CharField(max_length=8, choices=MODE_CHOICES,
                                           default=DEFAULTS.ctit_anomalies_mode)
    ctit_floor_seconds = models.PositiveIntegerField(default=DEFAULTS.ctit_floor_seconds)
    too_many_engagements_mode = models.CharField(max_length=8, choices=MODE_CHOICES,
                                                 default=DEFAULTS.too_many_engagements_mode)
    too_many_engagements_per_hour = models.PositiveIntegerField(
        default=DEFAULTS.too_many_engagements_per_hour)
    click_flood_mode = models.CharField(max_length=8, choices=MODE_CHOICES,
                                        default=DEFAULTS.click_flood_mode)
    anonymous_traffic_mode = models.CharField(max_length=8, choices=MODE_CHOICES,
                                              default=DEFAULTS.anonymous_traffic_mode)
    listed_networks = models.JSONField(default=list)  # CIDR strings
    bots_mode = models.CharField(max_length=8, choices=MODE_CHOICES, default=DEFAULTS.bots_mode)
    test_devices = models.JSONField(default=list)  # advertising ids, never blocked
    signing_mode = models.CharField(max_length=8, choices=SIGNING_CHOICES,
                                    default=DEFAULTS.signing_mode)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"fraud settings of {self.app_id}"


class SigningSecret(models.Model):
    """The HMAC secret of an API key created with `"signing": true`, encrypted
    (attribution_site/secrets.py); shown once, when the key is created."""

    key_id = models.CharField(max_length=64, primary_key=True)
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+")
    secret_encrypted = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"signing secret of key {self.key_id}"


class SourceFlag(models.Model):
    """A media source found flooding clicks on a day (beat, fraud-b's detection): in block mode
    its clicks are not eligible for the rest of that day, in flag mode its installs are
    flagged."""

    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+")
    media_source = models.CharField(max_length=255)
    day = models.DateField()
    mode = models.CharField(max_length=8, choices=[(verdict.FLAG, verdict.FLAG),
                                                   (verdict.BLOCK, verdict.BLOCK)])
    detected_at = models.DateTimeField(default=timezone.now)
    stats = models.JSONField(default=dict)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["app", "media_source", "day"],
                                    name="source_flag_unique_day"),
        ]
        indexes = [models.Index(fields=["app", "day"], name="source_flag_app_day_idx")]

    def __str__(self) -> str:
        return f"{self.media_source} flooding on {self.day} ({self.mode})"


class SignatureRefusal(models.Model):
    """Requests refused for their signature (enforce mode), counted per app and day: nothing
    else of them is stored. The fraud report reads `refusals`."""

    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    sub_reason = models.CharField(max_length=16)  # missing | wrong | expired
    refusals = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["app", "day", "sub_reason"],
                                    name="signature_refusal_unique_day"),
        ]

    def __str__(self) -> str:
        return f"{self.refusals} {self.sub_reason} signatures on {self.day}"


class BotClicks(models.Model):
    """Clicks from known bots and crawlers (the bots rule), counted per app, day and source:
    in block mode they are not recorded, in flag mode recorded and counted here. The fraud
    report reads `clicks`."""

    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    media_source = models.CharField(max_length=255, blank=True, default="")
    mode = models.CharField(max_length=8, choices=[(verdict.FLAG, verdict.FLAG),
                                                   (verdict.BLOCK, verdict.BLOCK)])
    clicks = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["app", "day", "media_source", "mode"],
                                    name="bot_clicks_unique_day"),
        ]

    def __str__(self) -> str:
        return f"{self.clicks} bot clicks ({self.mode}) on {self.day}"
