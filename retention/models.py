"""How far retention's enforcement has got (docs/privacy.md, "Retention").

`Progress` keeps, per table and app, the instant up to which IP addresses are masked: each run
starts there, so it touches only the rows that crossed the line since the last run. A row with
no app is the whole-table pass over partitions (days; the hot store's weeks) past every app's
limit (PostgreSQL).
`Enforcement` is one row: the lease that keeps two runs apart, and the last run's outcome that
/readyz reads.
"""

from __future__ import annotations

from django.db import models


class Progress(models.Model):
    table = models.CharField(max_length=64)
    app = models.ForeignKey("apps_registry.App", null=True, blank=True,
                            on_delete=models.CASCADE, related_name="+")
    masked_through = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "app"], name="retention_progress_once",
                                    condition=models.Q(app__isnull=False)),
            models.UniqueConstraint(fields=["table"], name="retention_progress_whole_once",
                                    condition=models.Q(app__isnull=True)),
        ]

    def __str__(self) -> str:
        return f"{self.table} masked through {self.masked_through:%Y-%m-%d %H:%M}"


class Enforcement(models.Model):
    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    lease_until = models.DateTimeField(null=True, blank=True)
    last_started_at = models.DateTimeField(null=True, blank=True)
    last_finished_at = models.DateTimeField(null=True, blank=True)
    # The run's clock (`now`), which may differ from the wall clock under manage.py --now.
    last_now = models.DateTimeField(null=True, blank=True)
    last_outcome = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"retention enforcement, last finished {self.last_finished_at}"
