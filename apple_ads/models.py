"""Apple Ads claims (docs/apple.md, "Apple Ads: a correction after the waterfall"): one row per
install that brought an AdServices token, holding the token until it is exchanged, where the
exchange stands, and Apple's answer; one attempt row per call to Apple's attribution API.

A claim's state moves pending -> sending (taken by one worker with a conditional UPDATE) ->
pending again for a retry, or a final state (apple_ads.policy.State).
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from apple_ads.policy import State
from outbox.models import CallAttemptRow, WorkRow, state_field


class Claim(WorkRow):
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+")
    # The install by id: tracking's table is reached only through tracking's services.
    install_id = models.UUIDField(unique=True)
    # Apple's token, a one-day credential: cleared once the claim is final.
    token = models.TextField(blank=True, default="")
    state = state_field([(s.value, s.value) for s in State])
    received_at = models.DateTimeField(default=timezone.now)  # when the token arrived
    last_error = models.TextField(blank=True, default="")
    # Apple's attribution record as received (attribution true or false), once it answered.
    answer = models.JSONField(null=True, blank=True)
    # Whether the answer moved the install to apple_search_ads (false: an earlier, later-touch
    # deterministic match kept it; see tracking.reattribution).
    reattributed = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"Apple Ads claim of install {self.install_id} ({self.state})"


class Attempt(CallAttemptRow):
    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="attempts")
    reading = models.CharField(max_length=16, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["claim", "number"], name="apple_attempt_unique"),
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.claim_id}"
