"""Erasure and access for one data subject in links' tables (docs/privacy.md, "Erasure and
access (OpenDSR)"): the deep-link opens of the subject's devices and installs keep their rows
(the link reports count them) without the device id.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.db.models import Q

from links.models import LinkOpen


def _opens(app_id: uuid.UUID, install_ids, device_ids):
    return LinkOpen.objects.filter(app_id=app_id).filter(
        Q(install_id__in=list(install_ids)) | Q(device_id__in=list(device_ids)))


def erase(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID],
          device_ids: Iterable[str]) -> dict[str, int]:
    """Blank the device id of the subject's link opens; rows touched."""
    touched = _opens(app_id, tuple(install_ids), tuple(device_ids)).update(device_id=None)
    return {LinkOpen._meta.db_table: touched}


def records_for(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID],
                device_ids: Iterable[str]) -> dict[str, list[dict]]:
    return {"link_opens": list(_opens(app_id, tuple(install_ids), tuple(device_ids))
                               .order_by("opened_at").values())}
