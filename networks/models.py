"""An app's integration with Meta and with Google Ads (docs/networks.md): at most one of each
per app. Secrets (Meta's install referrer decryption key and access token, Google's link id)
are kept encrypted (attribution_site/secrets.py), never in clear."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

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
        verbose_name = "Google Ads integration"

    def __str__(self) -> str:
        return f"Google Ads link …{self.link_id_last4}"
