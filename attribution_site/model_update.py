"""The one way a service applies a partial update to a row (apps, links, postbacks, webhooks):
only the fields the service names as updatable, `updated_at` stamped, and only the changed
columns written, so a concurrent edit of another field is not overwritten with a stale value.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from django.db import models
from django.utils import timezone


def model_update(*, instance: models.Model, changes: Mapping[str, Any],
                 updatable: Collection[str]) -> bool:
    """Set and save `changes` on `instance`; False (and nothing written) when there are none.
    The serializers pass only updatable fields, so any other is a bug, not a 400."""
    for name in changes:
        if name not in updatable:
            raise ValueError(f"{name} is not updatable")
    if not changes:
        return False
    for name, value in changes.items():
        setattr(instance, name, value)
    instance.updated_at = timezone.now()
    instance.save(update_fields=[*changes, "updated_at"])
    return True
