"""Postback and webhook configurations, deliveries and their attempts (spec: Postback
configuration, Postback delivery log, Webhook, Webhook delivery log).

One `Delivery` row per outbound message, written in the transaction of the fact that caused it,
before any Celery message exists; one `DeliveryAttempt` row per try, which is what the delivery
logs list. A delivery's state moves pending -> sending (claimed by one worker with a conditional
UPDATE) -> succeeded, back to pending for a retry, failed, or cancelled when its configuration
was deleted or deactivated before its turn. See docs/delivery.md.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from outbox.models import CallAttemptRow, WorkRow, state_field


def default_postback_events() -> list[str]:
    return ["install"]


class HttpMethod(models.TextChoices):
    GET = "GET"
    POST = "POST"


class ConsentPolicy(models.TextChoices):
    """What a postback does for a user under the GDPR who denied ad_user_data
    (docs/privacy.md, "What consent changes")."""

    STRIP = "strip"  # sent without the identifying macros
    SUPPRESS = "suppress"  # not sent


class PostbackConfig(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE,
                            related_name="postback_configs")
    media_source = models.CharField(max_length=255)
    postback_url = models.CharField(max_length=2048)
    http_method = models.CharField(max_length=4, choices=HttpMethod.choices,
                                   default=HttpMethod.GET)
    # Which facts post back: "install" by default; "event" and "re-engagement" on request.
    events = models.JSONField(default=default_postback_events)
    active = models.BooleanField(default=True)
    consent_policy = models.CharField(max_length=8, choices=ConsentPolicy.choices,
                                      default=ConsentPolicy.STRIP)
    # The network also hears of installs a fraud rule refused its claim to (is_rejected=1,
    # {reject_reason}, {reject_reason_value}; docs/fraud.md).
    send_rejected = models.BooleanField(default=False, db_default=False)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["app", "media_source"],
                                    name="postback_unique_media_source"),
        ]
        verbose_name = "postback configuration"

    def __str__(self) -> str:
        return f"postback to {self.media_source}"


class Webhook(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE,
                            related_name="webhooks")
    url = models.CharField(max_length=2048)
    events = models.JSONField()
    active = models.BooleanField(default=True)
    # Fernet token of the whsec_ secret (attribution_site/secrets.py); never the secret itself.
    secret_encrypted = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["app", "created_at"], name="webhook_app_idx")]

    def __str__(self) -> str:
        return f"webhook {self.url}"


class Kind(models.TextChoices):
    POSTBACK = "postback"
    WEBHOOK = "webhook"
    # Conversions sent back to the platforms (docs/networks.md, "Sending conversions"): no
    # configuration row; the app's integration is read when the delivery is sent.
    GOOGLE_ADS = "google_ads"
    META = "meta"


class State(models.TextChoices):
    PENDING = "pending"
    SENDING = "sending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    # Never sent: the user's consent ruled it out (the delivery's `consent_note` says why).
    SKIPPED = "skipped"


class Delivery(WorkRow):
    """An outbox work row (outbox.models.WorkRow); its id is the message id: the webhook
    envelope's `id` and `webhook-id`, the same on every retry."""

    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # SET_NULL keeps the history of a deleted configuration; an open delivery without one is
    # cancelled when its turn comes.
    postback = models.ForeignKey(PostbackConfig, null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="deliveries")
    webhook = models.ForeignKey(Webhook, null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="deliveries")
    event_type = models.CharField(max_length=16)
    # The install, event or re-engagement id: with the configuration, the idempotency key.
    source_id = models.CharField(max_length=64, blank=True, default="")
    # The install the message is about, an event's or a re-engagement's too: what the log
    # names and links (`payloads.log_subject`). Null for tests and for an event without one.
    install_id = models.UUIDField(null=True, blank=True)
    is_test = models.BooleanField(default=False)
    # Webhook: the exact JSON body. Postback: the macro values as JSON (the POST body).
    body = models.TextField()
    state = state_field(State.choices)
    max_attempts = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(default=timezone.now)
    # Why consent changed this delivery: stripped of identifiers, or skipped; "" when it did
    # not (docs/privacy.md, "What consent changes").
    consent_note = models.CharField(max_length=255, blank=True, default="")

    class Meta(WorkRow.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["postback", "event_type", "source_id"], name="delivery_once_postback",
                condition=models.Q(is_test=False, postback__isnull=False)),
            models.UniqueConstraint(
                fields=["webhook", "event_type", "source_id"], name="delivery_once_webhook",
                condition=models.Q(is_test=False, webhook__isnull=False)),
            models.UniqueConstraint(
                fields=["app", "kind", "event_type", "source_id"], name="delivery_once_platform",
                condition=models.Q(kind__in=["google_ads", "meta"])),
        ]
        indexes = [
            *WorkRow.Meta.indexes,  # the sweep's and the overdue count's, both small
            models.Index(fields=["completed_at"], name="delivery_completed_idx",
                         condition=models.Q(completed_at__isnull=False)),
            # The logs' keyset over deliveries not yet attempted (docs/delivery.md, "Deliveries
            # not yet attempted"): small, a delivery leaves it at its first attempt.
            models.Index(fields=["app", "kind", "-created_at", "-id"],
                         name="delivery_unattempted_idx",
                         condition=models.Q(attempts_made=0)),
        ]
        verbose_name_plural = "deliveries"

    def __str__(self) -> str:
        return f"{self.kind} {self.event_type} {self.id} ({self.state})"

    @property
    def configuration_id(self) -> uuid.UUID | None:
        if self.kind == Kind.POSTBACK:
            return self.postback_id
        return self.webhook_id if self.kind == Kind.WEBHOOK else None


class DeliveryAttempt(CallAttemptRow):
    """One try (an outbox attempt row): an entry of the delivery log."""

    id = models.BigAutoField(primary_key=True)
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempts")
    # Copied from the delivery so the log endpoints read one index, newest first.
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    http_method = models.CharField(max_length=4)
    # Credentials masked (payloads.mask_url) before it is stored.
    url = models.TextField()
    succeeded = models.BooleanField(null=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["delivery", "number"], name="attempt_unique_number"),
        ]
        indexes = [
            # The log endpoints' keyset: one app's entries of one kind, newest first, in the
            # order of (started_at, id), so every page is a range read of this index.
            models.Index(fields=["app", "kind", "-started_at", "-id"],
                         name="attempt_log_page_idx"),
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.delivery_id}"
