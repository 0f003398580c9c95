"""Data-subject requests (docs/privacy.md, "Erasure and access (OpenDSR)"): the request as an
audit record, the access document it produced, and two kinds of outbox work (docs/outbox.md):
the request's run (erase, or make the access document) and its status callbacks.

A request keeps the SHA-256 of its identity (type and value) for good; the identity itself and
the body it came in are kept only while the request is open, because the worker needs them to
find the rows, and are blanked when it completes or is cancelled.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from outbox.models import AttemptRow, CallAttemptRow, WorkRow, state_field


class RequestType(models.TextChoices):
    ERASURE = "erasure"
    ACCESS = "access"
    PORTABILITY = "portability"


class RequestStatus(models.TextChoices):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    CANCELLED = "cancelled"
    # Beyond OpenDSR's four: the run failed on its last try (docs/privacy.md, "When a run
    # fails"); nothing was erased.
    FAILED = "failed"


class Source(models.TextChoices):
    API = "api"          # POST /privacy/requests (OpenDSR)
    SDK = "sdk"          # POST /privacy/forget
    CONSOLE = "console"  # the console's form


class SubjectRequest(models.Model):
    # The controller's `subject_request_id`: unique across the service, as OpenDSR wants.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE,
                            related_name="subject_requests")
    request_type = models.CharField(max_length=16, choices=RequestType.choices)
    status = models.CharField(max_length=16, choices=RequestStatus.choices,
                              default=RequestStatus.PENDING)
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.API)
    identity_type = models.CharField(max_length=32)
    # hex SHA-256 of "type:value" (privacy.identities.identity_hash): the audit's proof.
    identity_hash = models.CharField(max_length=64)
    # Blanked when the request completes or is cancelled.
    identity_value = models.CharField(max_length=255, blank=True, default="")
    encoded_request = models.TextField(blank=True, default="")
    submitted_time = models.DateTimeField()
    received_time = models.DateTimeField(default=timezone.now)
    expected_completion_time = models.DateTimeField()
    api_version = models.CharField(max_length=8, default="1.0")
    status_callback_urls = models.JSONField(default=list, blank=True)
    # Fernet token of the whsec_ secret the callbacks are signed with (attribution_site/secrets.py).
    callback_secret_encrypted = models.TextField(blank=True, default="")
    # What was found, per table: {"tracking_install": 1, ...}.
    found = models.JSONField(default=dict, blank=True)
    # Where the request was filed (scheme and host): the base of the document's link in the
    # callbacks, which a worker sends without a request to read it from.
    base_url = models.CharField(max_length=2048, blank=True, default="")
    requested_by = models.ForeignKey("accounts.User", null=True, blank=True,
                                     on_delete=models.SET_NULL, related_name="+")
    started_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["app", "-received_time"], name="subject_request_app_idx"),
            # The sweep's read: open requests only.
            models.Index(fields=["received_time"], name="subject_request_open_idx",
                         condition=models.Q(status__in=["pending", "in_progress"])),
        ]

    def __str__(self) -> str:
        return f"{self.request_type} request {self.id} ({self.status})"


class AccessDocument(models.Model):
    """What an access or portability request found: one JSON document, fetched through a
    signed link that expires (privacy.links)."""

    request = models.OneToOneField(SubjectRequest, on_delete=models.CASCADE,
                                   primary_key=True, related_name="document")
    body = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"document of {self.request_id}"


class RunState(models.TextChoices):
    PENDING = "pending"
    SENDING = "sending"  # a worker holds it (the request is in progress)
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"  # the request was cancelled before its first try


class RequestRun(WorkRow):
    """A request's run, an outbox work row: one per request, under the request's own id (the
    message `privacy.request_run` names), tried until it succeeds or the retry policy ends."""

    id = None
    request = models.OneToOneField(SubjectRequest, on_delete=models.CASCADE,
                                   primary_key=True, related_name="run")
    state = state_field(RunState.choices)
    # Why the last try failed, in words; "" once it succeeded.
    last_error = models.TextField(blank=True, default="")

    def __str__(self) -> str:
        return f"run of {self.request_id} ({self.state})"


class RequestRunAttempt(AttemptRow):
    run = models.ForeignKey(RequestRun, on_delete=models.CASCADE, related_name="attempts")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "number"], name="privacy_run_attempt_unique"),
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of the run of {self.run_id}"


class CallbackState(models.TextChoices):
    PENDING = "pending"
    SENDING = "sending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class StatusCallback(WorkRow):
    """One POST of a request's status to one of its callback URLs (an outbox work row)."""

    request = models.ForeignKey(SubjectRequest, on_delete=models.CASCADE,
                                related_name="callbacks")
    url = models.CharField(max_length=2048)
    # The exact JSON body, frozen when the status changed: every retry sends the same.
    body = models.TextField()
    state = state_field(CallbackState.choices)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"status callback {self.id} ({self.state})"


class StatusCallbackAttempt(CallAttemptRow):
    callback = models.ForeignKey(StatusCallback, on_delete=models.CASCADE,
                                 related_name="attempts")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["callback", "number"],
                                    name="privacy_callback_attempt_unique"),
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.callback_id}"
