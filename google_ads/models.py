"""Google Ads claims (docs/networks.md, "Google Ads"): one row per install that has an
advertising id or Google's click in its Play referrer, for an app with a Google Ads
integration, holding what Google's App Conversion API is told about the first_open, where the
claim stands, and Google's answer; one attempt row per call (the first_open, then the
cross-network answer when Google claimed the install).

A claim's state moves pending -> sending (taken by one worker with a conditional UPDATE) ->
pending again for a retry or for the cross-network step, or a final state
(google_ads.policy.State).
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from google_ads.policy import State, Step
from outbox.models import CallAttemptRow, WorkRow, state_field


class Claim(WorkRow):
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

    def __str__(self) -> str:
        return f"Google Ads claim of install {self.install_id} ({self.state})"


class Attempt(CallAttemptRow):
    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="attempts")
    step = models.CharField(max_length=16, default=Step.FIRST_OPEN)
    url = models.TextField(blank=True, default="")  # the developer token masked
    reading = models.CharField(max_length=16, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["claim", "number"], name="google_attempt_unique"),
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.claim_id}"
