"""The consent history (docs/privacy.md, "Consent"): one row per change of a user's consent,
with the moment it applies from. A user is an install, a device id, or both; the consent at a
moment is the newest row of that user applying from then or earlier."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from attribution_site.ids import uuid7


class ConsentRecord(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+")
    # No foreign key to tracking's installs: a consent row may be written in the statement
    # that writes its install, and erasure removes both separately.
    install_id = models.UUIDField(null=True, blank=True)
    device_id = models.CharField(max_length=64, null=True, blank=True)
    applies_from = models.DateTimeField()
    recorded_at = models.DateTimeField(default=timezone.now)
    gdpr_applies = models.BooleanField()
    ad_user_data = models.BooleanField()
    ad_personalization = models.BooleanField()
    sharing_filter = models.CharField(max_length=8, blank=True, default="")
    source = models.CharField(max_length=8)  # manual | tcf
    tcf_policy_version = models.PositiveIntegerField(null=True, blank=True)
    tcf_cmp_id = models.PositiveIntegerField(null=True, blank=True)
    tcf_purposes_consent = models.JSONField(null=True, blank=True)
    tcf_vendor_755 = models.BooleanField(null=True, blank=True)
    tcstring = models.TextField(blank=True, default="")
    # What the consent says (consent.services.digest): a repeat of the current consent is
    # recognised by comparing one short column.
    digest = models.CharField(max_length=16)

    class Meta:
        indexes = [
            models.Index(fields=["app", "install_id", "applies_from"],
                         name="consent_install_idx",
                         condition=models.Q(install_id__isnull=False)),
            models.Index(fields=["app", "device_id", "applies_from"],
                         name="consent_device_idx",
                         condition=models.Q(device_id__isnull=False)),
        ]

    def __str__(self) -> str:
        return f"consent {self.source} from {self.applies_from:%Y-%m-%d %H:%M}"
