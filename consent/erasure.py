"""One data subject's consent history, for an erasure or an access document (privacy/erasure.py
names this module beside the other apps')."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from consent import selectors, services
from consent.models import ConsentRecord


def erase(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID],
          device_ids: Iterable[str]) -> dict[str, int]:
    """Delete the subject's consent rows; rows deleted."""
    deleted = services.erase(app_id, install_ids=install_ids, device_ids=device_ids)
    return {ConsentRecord._meta.db_table: deleted}


def records_for(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID],
                device_ids: Iterable[str]) -> dict[str, list[dict]]:
    return {"consent": selectors.records_for(app_id, install_ids=install_ids,
                                             device_ids=device_ids)}
