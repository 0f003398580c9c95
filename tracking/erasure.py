"""Erasure and access for one data subject in tracking's tables (docs/privacy.md, "Erasure and
access (OpenDSR)"): find the subject's installs from whatever identity the request named, blank
every identifying column of its clicks (the hot store and the archive, every partition),
installs and events, and list those rows for an access document.

Only UPDATEs, never a delete and reinsert: the daily rollups add rows by the transaction that
inserted them (tracking/changes.py, the `txid` column on PostgreSQL, the rowid on SQLite), and
an UPDATE keeps both, so nothing is counted again or lost and every report stays as it was.
The rows stay, anonymous: an erased install keeps its attribution, date and source, and no
longer has a device id, so a later install by the same device is a new user (the waterfall's
repeat lookup, tracking/sql.py, searches installs by device id).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q

from tracking.models import Click, ClickArchive, Event, Install

CLICK_BLANKS = {"advertising_id": None, "ip": None, "ip_prefix": "", "user_agent": "",
                "accept_language": "", "fingerprint": ""}
INSTALL_BLANKS = {"device_id": None, "customer_user_id": None, "ip": None, "user_agent": "",
                  "install_referrer": "", "screen_resolution": "", "timezone": "",
                  "language": ""}
EVENT_BLANKS = {"device_id": None}


@dataclass(frozen=True)
class Subject:
    """Everything one identity leads to in an app: its installs and their device ids."""

    install_ids: tuple[uuid.UUID, ...]
    device_ids: tuple[str, ...]


def subject_find(*, app_id: uuid.UUID, device_ids: Iterable[str] = (),
                 install_ids: Iterable[uuid.UUID] = (),
                 customer_user_ids: Iterable[str] = ()) -> Subject:
    """The installs any of the identities names, and every device id involved (the ones given,
    and those of the installs found, so an install id also reaches its device's clicks)."""
    device_ids, install_ids = list(device_ids), list(install_ids)
    customer_user_ids = list(customer_user_ids)
    match = Q(pk__in=[])
    if device_ids:
        match |= Q(device_id__in=device_ids)
    if install_ids:
        match |= Q(id__in=install_ids)
    if customer_user_ids:
        match |= Q(customer_user_id__in=customer_user_ids)
    rows = list(Install.objects.filter(app_id=app_id).filter(match)
                .values_list("id", "device_id"))
    found_devices = [device for _, device in rows if device]
    return Subject(install_ids=tuple(dict.fromkeys(install_id for install_id, _ in rows)),
                   device_ids=tuple(dict.fromkeys([*device_ids, *found_devices])))


def _clicks(model, app_id: uuid.UUID, install_ids, device_ids):
    # The clicks the devices made, and each install's winning click (a fingerprint match has
    # no advertising id, but holds the same person's address and User-Agent).
    click_ids = [c for c in Install.objects.filter(id__in=list(install_ids))
                 .values_list("click_id", flat=True) if c]
    match = Q(pk__in=[])
    if device_ids:
        match |= Q(advertising_id__in=list(device_ids))
    if click_ids:
        match |= Q(id__in=click_ids)
    return model.objects.filter(app_id=app_id).filter(match)


def _installs(app_id, install_ids, device_ids):
    return Install.objects.filter(app_id=app_id).filter(
        Q(id__in=list(install_ids)) | Q(device_id__in=list(device_ids)))


def _events(app_id, install_ids, device_ids):
    return Event.objects.filter(app_id=app_id).filter(
        Q(install_id__in=list(install_ids)) | Q(device_id__in=list(device_ids)))


def erase(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID],
          device_ids: Iterable[str]) -> dict[str, int]:
    """Blank the identity in clicks, installs and events; rows touched, per table."""
    install_ids, device_ids = tuple(install_ids), tuple(device_ids)
    with transaction.atomic():
        # Clicks first: they are found through the installs' click ids.
        counts = {
            Click._meta.db_table: _clicks(Click, app_id, install_ids, device_ids)
            .update(**CLICK_BLANKS),
            ClickArchive._meta.db_table: _clicks(ClickArchive, app_id, install_ids, device_ids)
            .update(**CLICK_BLANKS),
            Event._meta.db_table: _events(app_id, install_ids, device_ids)
            .update(**EVENT_BLANKS),
            Install._meta.db_table: _installs(app_id, install_ids, device_ids)
            .update(**INSTALL_BLANKS),
        }
    return counts


def records_for(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID],
                device_ids: Iterable[str]) -> dict[str, list[dict]]:
    """Every install, click and event of the subject, as rows of column values."""
    install_ids, device_ids = tuple(install_ids), tuple(device_ids)
    return {
        "installs": list(_installs(app_id, install_ids, device_ids).order_by("installed_at")
                         .values()),
        "clicks": list(_clicks(ClickArchive, app_id, install_ids, device_ids)
                       .order_by("clicked_at").values()),
        "events": list(_events(app_id, install_ids, device_ids).order_by("occurred_at", "id")
                       .values()),
    }
