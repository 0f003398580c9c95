"""Apple's privacy-preserving install measurement (docs/apple.md): the developer copies of winning
SKAdNetwork and AdAttributionKit postbacks, the ones refused, and the names of ad networks.

A `Postback` row is a postback whose signature verified and whose app is ours: it is counted.
A `RefusedPostback` is everything else Apple's endpoint received (bad signature, unknown app,
malformed body, unsupported version); it is kept for diagnosis, never counted. `AdNetwork` maps
an ad network id (`v9wttpbfk9.skadnetwork`) to the media source name reports show (`meta`), and
`AppAdNetworkName` overrides that per app.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from attribution_site.ids import uuid7


class Framework(models.TextChoices):
    SKADNETWORK = "skadnetwork"
    ADATTRIBUTIONKIT = "adattributionkit"


class Verdict(models.TextChoices):
    """Which of Apple's keys signed a counted postback."""

    VERIFIED = "verified"  # Apple's production key
    VERIFIED_DEVELOPMENT = "verified_development"  # AdAttributionKit's development key


class Postback(models.Model):
    """A verified postback, stored once per (transaction id, postback sequence index)."""

    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE,
                            related_name="skan_postbacks")
    framework = models.CharField(max_length=20, choices=Framework.choices)
    version = models.CharField(max_length=8)  # "2.0" ... "4.0"; AdAttributionKit has none: ""
    ad_network_id = models.CharField(max_length=255)
    transaction_id = models.CharField(max_length=64)
    # SKAdNetwork 4.0 and AdAttributionKit: 0, 1, 2 for the three conversion windows; earlier
    # versions send one postback, stored as 0.
    postback_sequence_index = models.PositiveSmallIntegerField(default=0)
    # 4.0 and AdAttributionKit: the 2-4 digit hierarchical source identifier as sent; earlier
    # versions: the campaign id written as a string, so reports group by one column.
    source_identifier = models.CharField(max_length=16, blank=True, default="")
    campaign_id = models.PositiveSmallIntegerField(null=True, blank=True)  # before 4.0 only
    source_app_id = models.CharField(max_length=32, blank=True, default="")
    source_domain = models.CharField(max_length=255, blank=True, default="")
    # SKAdNetwork: 0 view-through, 1 StoreKit-rendered (click); None before 2.2.
    fidelity_type = models.PositiveSmallIntegerField(null=True, blank=True)
    # "click" / "view": AdAttributionKit's ad-interaction-type, or derived from fidelity_type.
    interaction_type = models.CharField(max_length=8, blank=True, default="")
    redownload = models.BooleanField(null=True, blank=True)
    did_win = models.BooleanField(null=True, blank=True)  # 3.0 and later
    fine_value = models.PositiveSmallIntegerField(null=True, blank=True)  # 0-63, or None
    coarse_value = models.CharField(max_length=8, blank=True, default="")  # low/medium/high
    country_code = models.CharField(max_length=2, blank=True, default="")  # where Apple sends it
    # AdAttributionKit only: "install" / "re-engagement", and its marketplace.
    conversion_type = models.CharField(max_length=16, blank=True, default="")
    marketplace = models.CharField(max_length=255, blank=True, default="")
    raw_body = models.TextField()
    verdict = models.CharField(max_length=24, choices=Verdict.choices)
    received_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["transaction_id", "postback_sequence_index"],
                                    name="skan_postback_unique_transaction_window"),
        ]
        indexes = [models.Index(fields=["app", "received_at"])]

    def __str__(self) -> str:
        return f"{self.version} {self.transaction_id}#{self.postback_sequence_index}"


class RefusalReason(models.TextChoices):
    BAD_SIGNATURE = "bad_signature"
    UNKNOWN_APP = "unknown_app"
    # More than one app here claims the App Store id: counted for none, see docs/apple.md.
    AMBIGUOUS_APP = "ambiguous_app"
    MALFORMED = "malformed"
    UNSUPPORTED_VERSION = "unsupported_version"
    DEVELOPMENT_KEY = "development_key"  # signed with Apple's development key, not accepted here


class RefusedPostback(models.Model):
    """A postback that was received but not counted, and why."""

    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)
    framework = models.CharField(max_length=20, choices=Framework.choices)
    reason = models.CharField(max_length=24, choices=RefusalReason.choices)
    detail = models.CharField(max_length=255, blank=True, default="")
    # What the body named, when it could be read: lets an owner find refusals of their app.
    app_store_id = models.CharField(max_length=32, blank=True, default="")
    transaction_id = models.CharField(max_length=64, blank=True, default="")
    raw_body = models.TextField()  # truncated to RAW_BODY_LIMIT characters
    received_at = models.DateTimeField(default=timezone.now)

    RAW_BODY_LIMIT = 8192

    class Meta:
        indexes = [models.Index(fields=["received_at"]),
                   models.Index(fields=["app_store_id", "received_at"])]

    def __str__(self) -> str:
        return f"{self.reason} {self.received_at:%Y-%m-%d %H:%M}"


class AdNetwork(models.Model):
    """An ad network id as Apple's postbacks carry it, and the media source name reports show."""

    network_id = models.CharField(primary_key=True, max_length=255)  # lower-case
    name = models.CharField(max_length=255)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "network_id"]

    def __str__(self) -> str:
        return f"{self.network_id} → {self.name}"

    def save(self, *args, **kwargs):
        self.network_id = self.network_id.strip().lower()  # postbacks are matched lower-case
        super().save(*args, **kwargs)


class AppAdNetworkName(models.Model):
    """One app's own name for an ad network id, preferred over `AdNetwork` for that app."""

    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE,
                            related_name="ad_network_names")
    network_id = models.CharField(max_length=255)  # lower-case
    name = models.CharField(max_length=255)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["app", "network_id"],
                                    name="skan_app_ad_network_name_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.network_id} → {self.name}"

    def save(self, *args, **kwargs):
        self.network_id = self.network_id.strip().lower()
        super().save(*args, **kwargs)


class CampaignMapping(models.Model):
    """Which of a network's campaigns a SKAdNetwork campaign stands for, in one app: Apple's
    postbacks name a 2-4 digit source identifier (a campaign id of 0-99 before 4.0), never the
    network's own campaign id, so the cost report puts SKAN installs beside a campaign's spend
    only through this (docs/apple.md, "SKAN beside spend")."""

    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE,
                            related_name="skan_campaign_mappings")
    media_source = models.CharField(max_length=255)  # as the SKAN report names the network
    source_identifier = models.CharField(max_length=16)
    campaign_id = models.CharField(max_length=255)  # the network's, as spend rows carry it
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["app", "media_source", "source_identifier"],
                                    name="skan_campaign_mapping_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.media_source} {self.source_identifier} → {self.campaign_id}"
