"""The one way a service applies a partial update to a row (apps, links, postbacks, webhooks,
data destinations, fraud settings): only the fields the service names as updatable,
`updated_at` stamped, and only the changed columns written, so a concurrent edit of another
field (a run moving a destination's watermark) is not overwritten with a stale value.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any

from django.db import models
from django.utils import timezone


def model_update(*, instance: models.Model, changes: Mapping[str, Any],
                 updatable: Collection[str], now: datetime | None = None) -> bool:
    """Set and save `changes` on `instance`, `updated_at` stamped `now` (default: the clock);
    False (and nothing written) when there are none. The serializers pass only updatable
    fields, so any other is a bug, not a 400."""
    for name in changes:
        if name not in updatable:
            raise ValueError(f"{name} is not updatable")
    if not changes:
        return False
    for name, value in changes.items():
        setattr(instance, name, value)
    instance.updated_at = now or timezone.now()
    instance.save(update_fields=[*changes, "updated_at"])
    return True
