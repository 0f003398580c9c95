"""The audit log's rows (docs/teams.md, "Audit log"): one `Entry` per change a person made, per
login and failed login, and per token's use from a further address; and the addresses each
token was used from (`TokenAddress`), which tell a further one apart.

An entry holds plain values, not foreign keys: it outlives the member who acted (removed
later), the app it names (deleted later) and the email as it was then, and it is written and
read only by audit/services.py and audit/selectors.py. Nothing updates or deletes an entry but
the retention task (AUDIT_RETENTION_DAYS).
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class Entry(models.Model):
    id = models.BigAutoField(primary_key=True)
    # None for a failed login with an email no one has.
    organization_id = models.UUIDField(null=True, blank=True)
    actor_id = models.UUIDField(null=True, blank=True)
    actor_email = models.CharField(max_length=254, blank=True)
    action = models.CharField(max_length=100)
    target = models.CharField(max_length=100, blank=True)
    changes = models.JSONField(default=dict, blank=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "entries"
        indexes = [
            # The log's one order, newest first, within an organization (and the cursor).
            models.Index(fields=["organization_id", "-created_at", "-id"],
                         name="audit_entry_org_time"),
            models.Index(fields=["created_at"], name="audit_entry_time"),
        ]

    def __str__(self) -> str:
        return f"{self.action} by {self.actor_email or '?'}"


class TokenAddress(models.Model):
    """An address a Bearer credential was used from; the credential is known by its SHA-256
    only."""

    id = models.BigAutoField(primary_key=True)
    token_digest = models.CharField(max_length=64)
    ip = models.GenericIPAddressField()
    first_seen_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["token_digest", "ip"],
                                               name="audit_token_address_unique")]
        indexes = [models.Index(fields=["first_seen_at"], name="audit_token_address_time")]

    def __str__(self) -> str:
        return f"{self.token_digest[:12]}… from {self.ip}"
