"""Apps and their API keys (spec: App, API key).

An app's store identifier (bundle_id on iOS, package_name on Android, domain on web) is unique
within an organization and platform; see docs/decisions.md for why not across the service.
"""

from __future__ import annotations

import uuid

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

from apps_registry import app_fields, keys


class Platform(models.TextChoices):
    IOS = "ios"
    ANDROID = "android"
    WEB = "web"


class IosFingerprinting(models.TextChoices):
    """Whether the fingerprint tier may attribute iOS installs without tracking consent
    (tracking.attribution.fingerprint_allowed holds the rule; these are its values)."""

    NEVER_WITHOUT_CONSENT = "never_without_consent", "Only with tracking consent (Apple's policy)"
    ALWAYS = "always", "Always (Apple's policy forbids it: the app may be rejected)"


class App(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("accounts.Organization", on_delete=models.CASCADE,
                                     related_name="apps")
    name = models.CharField(max_length=200)
    platform = models.CharField(max_length=16, choices=Platform.choices)
    bundle_id = models.CharField(max_length=255, null=True, blank=True)
    apple_app_id = models.CharField(max_length=32, null=True, blank=True)
    package_name = models.CharField(max_length=255, null=True, blank=True)
    domain = models.CharField(max_length=255, null=True, blank=True)
    app_store_url = models.URLField(max_length=2048, null=True, blank=True)
    play_store_url = models.URLField(max_length=2048, null=True, blank=True)
    # For links (universal links and app links): the association files name the app by them.
    apple_team_id = models.CharField(max_length=10, null=True, blank=True)
    android_sha256_fingerprints = models.JSONField(default=list, blank=True)
    # The app's own URL scheme ("myapp" for myapp://...), the one non-http destination a link's
    # "Open" button may use.
    url_scheme = models.CharField(max_length=64, null=True, blank=True)
    # The default follows Apple's App Tracking Transparency policy (docs/apple.md,
    # "Consent-aware fingerprinting").
    ios_fingerprinting = models.CharField(max_length=32, choices=IosFingerprinting.choices,
                                          default=IosFingerprinting.NEVER_WITHOUT_CONSENT)
    # How long full IP addresses and fingerprints, then raw clicks and events, are kept
    # (bounds in app_fields.py, enforced by retention/; docs/privacy.md, "Retention").
    # Database defaults too, so an older process creating an app during a rolling deploy
    # still writes a valid row.
    ip_retention_days = models.PositiveIntegerField(
        default=app_fields.IP_RETENTION_DEFAULT_DAYS,
        db_default=app_fields.IP_RETENTION_DEFAULT_DAYS,
        validators=[MinValueValidator(app_fields.IP_RETENTION_MINIMUM_DAYS),
                    MaxValueValidator(app_fields.RETENTION_MAXIMUM_DAYS)])
    raw_retention_days = models.PositiveIntegerField(
        default=app_fields.RAW_RETENTION_DEFAULT_DAYS,
        db_default=app_fields.RAW_RETENTION_DEFAULT_DAYS,
        validators=[MinValueValidator(app_fields.RAW_RETENTION_MINIMUM_DAYS),
                    MaxValueValidator(app_fields.RETENTION_MAXIMUM_DAYS)])
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(raw_retention_days__gte=models.F("ip_retention_days")),
                name="app_raw_retention_covers_ip",
                violation_error_message="raw_retention_days must be at least "
                                        "ip_retention_days."),
            models.UniqueConstraint(fields=["organization", "platform", "bundle_id"],
                                    name="app_unique_bundle_id"),
            models.UniqueConstraint(fields=["organization", "platform", "package_name"],
                                    name="app_unique_package_name"),
            models.UniqueConstraint(fields=["organization", "platform", "domain"],
                                    name="app_unique_domain"),
        ]
        indexes = [models.Index(fields=["organization", "created_at"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.platform})"


class ApiKey(models.Model):
    id = models.CharField(primary_key=True, max_length=32, editable=False)
    app = models.ForeignKey(App, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=200, blank=True, default="")
    key_prefix = models.CharField(max_length=32)
    secret_hash = models.CharField(max_length=64)
    permissions = models.JSONField(default=list)
    # `server` (an app's or a server's secret key) or `web` (public, in a page: only the web
    # endpoints, only from `allowed_origins`; apps_registry/keys.py). Database defaults too,
    # so an older process creating a key during a rolling deploy writes a server key.
    kind = models.CharField(max_length=8, choices=[(k, k) for k in keys.KINDS],
                            default=keys.KIND_SERVER, db_default=keys.KIND_SERVER)
    allowed_origins = models.JSONField(default=list, db_default=[], blank=True)
    rate_limit = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["app", "created_at"])]
        verbose_name = "API key"

    def __str__(self) -> str:
        return self.key_prefix
