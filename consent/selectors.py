"""Reads of the consent history (docs/privacy.md, "Consent"): a user's consent at a moment,
many users' in one query (delivery's fan-out, exports), and every row of an identity for an
access request. A user is found by install id or device id: a consent sent before its install
was reported (by device id) counts for the install."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import NamedTuple

from django.db.models import Q

from consent.consent_data import Consent, TcfDetails
from consent.models import ConsentRecord


class Subject(NamedTuple):
    """Whose consent, and when (None: now)."""

    app_id: uuid.UUID
    install_id: uuid.UUID | None
    device_id: str | None
    at: datetime | None = None


def consent_of(*, app_id: uuid.UUID, install_id: uuid.UUID | None = None,
               device_id: str | None = None, at: datetime | None = None) -> Consent | None:
    """The user's consent at `at` (now when None); None when none was ever sent."""
    return consents_at([Subject(app_id, install_id, device_id, at)])[0]


def consents_at(subjects: Sequence[Subject]) -> list[Consent | None]:
    """Each subject's consent, in order, read with one query (none when no subject has an id)."""
    wanted = _subjects_filter(subjects)
    if wanted is None:
        return [None] * len(subjects)
    rows = list(ConsentRecord.objects.filter(wanted).order_by("applies_from", "id"))
    by_install: dict[tuple, list[ConsentRecord]] = {}
    by_device: dict[tuple, list[ConsentRecord]] = {}
    for row in rows:
        if row.install_id is not None:
            by_install.setdefault((row.app_id, row.install_id), []).append(row)
        if row.device_id is not None:
            by_device.setdefault((row.app_id, row.device_id), []).append(row)
    answers: list[Consent | None] = []
    for subject in subjects:
        candidates = [*by_install.get((subject.app_id, subject.install_id), ()),
                      *by_device.get((subject.app_id, subject.device_id), ())]
        applying = [row for row in candidates
                    if subject.at is None or row.applies_from <= subject.at]
        latest = max(applying, key=lambda row: (row.applies_from, row.id), default=None)
        answers.append(None if latest is None else consent_from_row(latest))
    return answers


def _subjects_filter(subjects: Iterable[Subject]) -> Q | None:
    wanted = None
    for app_id in {subject.app_id for subject in subjects}:
        mine = [s for s in subjects if s.app_id == app_id]
        install_ids = {s.install_id for s in mine if s.install_id is not None}
        device_ids = {s.device_id for s in mine if s.device_id}
        if not install_ids and not device_ids:
            continue
        ids = Q(install_id__in=install_ids) if install_ids else Q()
        if device_ids:
            ids = (ids | Q(device_id__in=device_ids)) if install_ids else Q(
                device_id__in=device_ids)
        moments = [s.at for s in mine]
        narrowed = Q(app_id=app_id) & ids
        if None not in moments:  # rows applying after every fact cannot matter
            narrowed &= Q(applies_from__lte=max(moments))
        wanted = narrowed if wanted is None else wanted | narrowed
    return wanted


def consent_from_row(row: ConsentRecord) -> Consent:
    details = None
    if row.tcstring:
        details = TcfDetails(policy_version=row.tcf_policy_version, cmp_id=row.tcf_cmp_id,
                             purposes_consent=tuple(row.tcf_purposes_consent or ()),
                             vendor_755=bool(row.tcf_vendor_755), tcstring=row.tcstring)
    return Consent(gdpr_applies=row.gdpr_applies, ad_user_data=row.ad_user_data,
                   ad_personalization=row.ad_personalization, source=row.source,
                   sharing_filter=row.sharing_filter, tcf=details)


def records_for(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID] = (),
                device_ids: Iterable[str] = ()) -> list[dict]:
    """Every consent row of the identity, oldest first, as JSON-ready values (times as ISO 8601
    UTC, the TC string included): what an access request's document lists."""
    install_ids, device_ids = list(install_ids), [d for d in device_ids if d]
    if not install_ids and not device_ids:
        return []
    rows = ConsentRecord.objects.filter(
        Q(install_id__in=install_ids) | Q(device_id__in=device_ids), app_id=app_id,
    ).order_by("applies_from", "id")
    return [{
        "install_id": str(row.install_id) if row.install_id else None,
        "device_id": row.device_id, "applies_from": _iso(row.applies_from),
        "recorded_at": _iso(row.recorded_at), "gdpr_applies": row.gdpr_applies,
        "ad_user_data": row.ad_user_data, "ad_personalization": row.ad_personalization,
        "sharing_filter": row.sharing_filter or None, "source": row.source,
        "tcf_policy_version": row.tcf_policy_version, "tcf_cmp_id": row.tcf_cmp_id,
        "tcf_purposes_consent": row.tcf_purposes_consent,
        "tcf_vendor_755": row.tcf_vendor_755, "tcstring": row.tcstring or None,
    } for row in rows]


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def apps_with_consent(app_ids: Iterable[uuid.UUID]) -> set[uuid.UUID]:
    """Which of the apps have any consent history: a reader of many installs (the raw-data
    export) asks once and skips the lookups for an app that never sent consent."""
    return {app_id for app_id in app_ids
            if ConsentRecord.objects.filter(app_id=app_id).exists()}
