"""The networks' rows (docs/networks.md): an app's integration with Meta and with Google Ads (at
most one of each per app; secrets, Meta's install referrer decryption key and access token and
Google's link id, kept encrypted by attribution_site/secrets.py, never in clear), and Google Ads
claims with their attempts (an outbox kind, networks/google/enqueue.py).

The tables keep the names they had in the apps these models came from (`integrations_*`,
`google_ads_*`): networks/migrations/0001 adopts them on an existing database (docs/decisions.md,
"One networks/ app")."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

from networks.google.policy import State, Step
from outbox.models import AttemptRow, CallAttemptRow, WorkRow, state_field, sweep_indexes

META_VIEW_WINDOW_DEFAULT_HOURS = 24
META_VIEW_WINDOW_MAXIMUM_HOURS = 7 * 24


class MetaConfig(models.Model):
    app = models.OneToOneField("apps_registry.App", on_delete=models.CASCADE,
                               related_name="meta_integration")
    meta_app_id = models.CharField(max_length=32)
    # The 64 hex characters of the AES-256 key, encrypted.
    decryption_key_encrypted = models.TextField()
    decryption_key_last4 = models.CharField(max_length=4)
    access_token_encrypted = models.TextField(blank=True, default="")
    access_token_last4 = models.CharField(max_length=4, blank=True, default="")
    # Our event name -> Meta's event name (the events sent to Meta's Conversions API).
    event_mapping = models.JSONField(default=dict, blank=True)
    # How long after an ad view an install may still be credited to it (view-through).
    view_window_hours = models.PositiveIntegerField(
        default=META_VIEW_WINDOW_DEFAULT_HOURS,
        validators=[MinValueValidator(1), MaxValueValidator(META_VIEW_WINDOW_MAXIMUM_HOURS)])
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "integrations_metaconfig"
        verbose_name = "Meta integration"

    def __str__(self) -> str:
        return f"Meta app {self.meta_app_id}"


class GoogleAdsConfig(models.Model):
    app = models.OneToOneField("apps_registry.App", on_delete=models.CASCADE,
                               related_name="google_ads_integration")
    # The link id Google Ads made for this app ("third-party app analytics", other provider),
    # encrypted: with the developer token it is what lets a caller speak for the app.
    link_id_encrypted = models.TextField()
    link_id_last4 = models.CharField(max_length=4)
    event_mapping = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "integrations_googleadsconfig"
        verbose_name = "Google Ads integration"

    def __str__(self) -> str:
        return f"Google Ads link …{self.link_id_last4}"


# Google Ads claims (docs/networks.md, "Google Ads"): one row per install that has an advertising
# id or Google's click in its Play referrer, for an app with a Google Ads integration, holding
# what Google's App Conversion API is told about the first_open, where the claim stands, and
# Google's answer; one attempt row per call (the first_open, then the cross-network answer when
# Google claimed the install). A claim's state moves pending -> sending (taken by one worker
# with a conditional UPDATE) -> pending again for a retry or for the cross-network step, or a
# final state (networks.google.policy.State).

class GoogleClaim(WorkRow):
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+")
    # The install by id: tracking's table is reached only through tracking's services.
    install_id = models.UUIDField(unique=True)
    platform = models.CharField(max_length=16)
    # What Google is told; cleared once the claim is final (device data kept no longer than
    # needed: the answer stays).
    rdid = models.CharField(max_length=64, blank=True, default="")
    gclid = models.CharField(max_length=512, blank=True, default="")
    gbraid = models.CharField(max_length=512, blank=True, default="")
    os_version = models.CharField(max_length=64, blank=True, default="")
    sdk_version = models.CharField(max_length=64, blank=True, default="")
    ip = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=1024, blank=True, default="")
    installed_at = models.DateTimeField()
    step = models.CharField(max_length=16, choices=[(s.value, s.value) for s in Step],
                            default=Step.FIRST_OPEN)
    # Attempts made before the current step began: the retry schedule counts within a step.
    step_offset = models.PositiveIntegerField(default=0)
    state = state_field([(s.value, s.value) for s in State])
    received_at = models.DateTimeField(default=timezone.now)
    last_error = models.TextField(blank=True, default="")
    # Google's conversion answer as received, once it answered.
    answer = models.JSONField(null=True, blank=True)
    ad_event_id = models.CharField(max_length=255, blank=True, default="")
    # Whether the install was credited to Google here (what the cross-network answer says).
    reattributed = models.BooleanField(default=False)
    cross_network = models.CharField(max_length=8, blank=True, default="")

    class Meta:
        db_table = "google_ads_claim"
        verbose_name = "Google Ads claim"
        # The sweep's indexes under the names google_ads' migrations gave them.
        indexes = sweep_indexes("google_ads_claim")

    def __str__(self) -> str:
        return f"Google Ads claim of install {self.install_id} ({self.state})"


class GoogleClaimAttempt(CallAttemptRow):
    claim = models.ForeignKey(GoogleClaim, on_delete=models.CASCADE, related_name="attempts")
    step = models.CharField(max_length=16, default=Step.FIRST_OPEN)
    url = models.TextField(blank=True, default="")  # the developer token masked
    reading = models.CharField(max_length=16, blank=True, default="")

    class Meta:
        db_table = "google_ads_attempt"
        verbose_name = "Google Ads claim attempt"
        constraints = [
            models.UniqueConstraint(fields=["claim", "number"], name="google_attempt_unique"),
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.claim_id}"


# Ad spend (docs/networks.md, "Ad spend"): the cost part of an app's integration with a network,
# and the pulls of its spend (an outbox kind, networks/spend/enqueue.py).

class SpendNetwork(models.TextChoices):
    META = "meta"
    GOOGLE_ADS = "google_ads"
    TIKTOK = "tiktok"
    APPLE_ADS = "apple_ads"


class SpendConnection(models.Model):
    """The cost part of an app's integration with one network: the account, the credentials
    (encrypted, never shown again: their last 4 characters are), how far back each pull goes
    and which campaigns are the app's. One table for the four networks: their parts differ
    only in which account fields and secrets they hold (docs/decisions.md, "One table for the
    networks' cost connections")."""

    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE,
                            related_name="spend_connections")
    network = models.CharField(max_length=16, choices=SpendNetwork.choices)
    enabled = models.BooleanField(default=True)
    # What is not secret: the account ids (ad_account_id, customer_id, advertiser_id, org_id)
    # and the credentials' identifiers (Google's client_id; Apple's client_id, team_id, key_id).
    account = models.JSONField(default=dict)
    # The secrets as one JSON object, encrypted (attribution_site/secrets.py).
    secrets_encrypted = models.TextField()
    secrets_last4 = models.JSONField(default=dict)
    lookback_days = models.PositiveSmallIntegerField(
        default=7, validators=[MinValueValidator(1), MaxValueValidator(30)])
    campaign_ids = models.JSONField(default=list, blank=True)
    campaign_name_contains = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["app", "network"],
                                               name="spend_connection_unique")]

    def __str__(self) -> str:
        return f"{self.get_network_display()} cost of app {self.app_id}"


class CostPull(WorkRow):
    """One pull of a connection's spend for a window of days: pending -> sending -> done or
    failed (networks/spend/policy.py), with what it wrote."""

    connection = models.ForeignKey(SpendConnection, on_delete=models.CASCADE,
                                   related_name="pulls")
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+")
    network = models.CharField(max_length=16, choices=SpendNetwork.choices)
    since = models.DateField()
    until = models.DateField()
    trigger = models.CharField(max_length=16, default="schedule")  # or "request"
    state = state_field([("pending", "pending"), ("sending", "sending"), ("done", "done"),
                         ("failed", "failed")])
    rows_written = models.PositiveIntegerField(default=0)
    # Spend written per currency, as text ({"USD": "1234.56"}): an account has one currency,
    # but nothing here assumes it.
    spend_totals = models.JSONField(default=dict, blank=True)
    last_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [*sweep_indexes("networks_costpull"),
                   models.Index(fields=["connection", "-created_at"],
                                name="networks_costpull_recent")]

    def __str__(self) -> str:
        return f"{self.network} cost pull {self.since}..{self.until} ({self.state})"


class CostPullAttempt(AttemptRow):
    pull = models.ForeignKey(CostPull, on_delete=models.CASCADE, related_name="attempts")
    calls = models.PositiveIntegerField(default=0)
    rows_read = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["pull", "number"],
                                               name="cost_pull_attempt_unique")]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.pull_id}"
