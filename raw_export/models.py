"""Destinations and their runs (docs/export.md, "Destinations"; docs/outbox.md).

A destination is where an organization's raw data goes: an S3-compatible bucket or a local
directory. Its secret access key is stored encrypted (attribution_site.secrets), never answered. It
keeps the commit-order watermark (tracking.changes.Watermark, as JSON) its files are written up
to: the next run writes what committed after it, and it moves only when a run's files are all
written, so a failed or interrupted run leaves it where it was and nothing is skipped.

A run is a kind of outbox work (pending, sending, then succeeded or failed) with one attempt row
per try; at most one run of a destination is open at a time, so two workers never write the same
rows.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from outbox.models import AttemptRow, WorkRow, state_field


class DestinationKind(models.TextChoices):
    S3 = "s3"
    DIRECTORY = "directory"


class FileFormat(models.TextChoices):
    PARQUET = "parquet"
    CSV = "csv"


class Destination(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("accounts.Organization", on_delete=models.CASCADE,
                                     related_name="data_destinations")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=10, choices=DestinationKind.choices)
    bucket = models.CharField(max_length=222, blank=True, default="")
    prefix = models.CharField(max_length=512, blank=True, default="")
    endpoint_url = models.CharField(max_length=2048, blank=True, default="")
    region = models.CharField(max_length=64, blank=True, default="")
    access_key_id = models.CharField(max_length=128, blank=True, default="")
    # Encrypted (attribution_site/secrets.py); never answered, never logged.
    secret_access_key_encrypted = models.TextField(blank=True, default="")
    # For kind "directory": relative to settings.RAW_EXPORT_DIRECTORY_ROOT.
    path = models.CharField(max_length=1024, blank=True, default="")
    format = models.CharField(max_length=8, choices=FileFormat.choices,
                              default=FileFormat.PARQUET)
    topics = models.JSONField(default=list)
    # Empty: every app of the organization, including apps added later.
    app_ids = models.JSONField(default=list, blank=True)
    # What the files are written up to: tracking.changes.Watermark.to_json(), None before the
    # first run. `watermark_serial` counts its moves, so a run that lost its claim cannot move
    # it back over a newer run's (the update is conditional on the serial the run started from).
    watermark = models.JSONField(null=True, blank=True)
    watermark_serial = models.PositiveIntegerField(default=0)
    written_up_to = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    last_error_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["organization", "created_at"],
                                name="raw_export_dest_org_idx")]

    def __str__(self) -> str:
        return f"data destination {self.name} ({self.kind})"


class RunState(models.TextChoices):
    PENDING = "pending"
    SENDING = "sending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class RunTrigger(models.TextChoices):
    SCHEDULE = "schedule"
    MANUAL = "manual"


class Run(WorkRow):
    """One export of what committed since the destination's watermark (an outbox work row)."""

    destination = models.ForeignKey(Destination, on_delete=models.CASCADE, related_name="runs")
    trigger = models.CharField(max_length=10, choices=RunTrigger.choices,
                               default=RunTrigger.SCHEDULE)
    state = state_field(RunState.choices)
    # Set when it succeeds: {"installs": {"rows": 10, "bytes": 2048}, ...}.
    topics = models.JSONField(default=dict, blank=True)
    rows = models.BigIntegerField(default=0)
    bytes = models.BigIntegerField(default=0)
    hours_completed = models.JSONField(default=list, blank=True)
    until = models.JSONField(null=True, blank=True)
    error_message = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta(WorkRow.Meta):
        indexes = [
            *WorkRow.Meta.indexes,
            models.Index(fields=["destination", "-created_at"], name="raw_export_run_dest_idx"),
        ]
        constraints = [
            # Two open runs of one destination would write the same rows twice.
            models.UniqueConstraint(fields=["destination"], name="raw_export_one_open_run",
                                    condition=models.Q(state__in=["pending", "sending"])),
        ]

    def __str__(self) -> str:
        return f"run {self.id} of {self.destination_id} ({self.state})"


class RunAttempt(AttemptRow):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="attempts")
    # StorageError.reason ("bad_credentials", "unreachable", ...); its words in error_message.
    reason = models.CharField(max_length=32, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "number"], name="raw_export_attempt_unique"),
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of run {self.run_id}"
