"""Writes of the consent history (docs/privacy.md, "Consent"): the rows the SDK endpoints
add with an install or an event batch, a change through POST /consent, and erasure.

The hot paths pay only when `consent_data` is sent: a new install's row joins the install's
own statement (a WriteBatch); anywhere else one INSERT ... SELECT ... WHERE NOT EXISTS adds the
row unless the user's consent at that moment already says the same, so an SDK repeating the
consent with every event does not grow the history.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from attribution_site.api.exceptions import NotFound, ValidationFailed
from attribution_site.ids import uuid7
from consent.consent_data import Consent
from consent.models import ConsentRecord


def digest(consent: Consent) -> str:
    """Sixteen hex characters that change whenever anything the consent says changes."""
    details = consent.tcf
    text = "|".join(str(part) for part in (
        consent.gdpr_applies, consent.ad_user_data, consent.ad_personalization, consent.source,
        consent.sharing_filter, details.tcstring if details else ""))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def record_row(*, app_id: uuid.UUID, install_id: uuid.UUID | None, device_id: str | None,
               applies_from: datetime, consent: Consent) -> ConsentRecord:
    """An unsaved row with its key set, for a WriteBatch (a new install's statement)."""
    details = consent.tcf
    return ConsentRecord(
        id=uuid7(), app_id=app_id, install_id=install_id, device_id=device_id or None,
        applies_from=applies_from, recorded_at=timezone.now(),
        gdpr_applies=consent.gdpr_applies, ad_user_data=consent.ad_user_data,
        ad_personalization=consent.ad_personalization, sharing_filter=consent.sharing_filter,
        source=consent.source,
        tcf_policy_version=details.policy_version if details else None,
        tcf_cmp_id=details.cmp_id if details else None,
        tcf_purposes_consent=list(details.purposes_consent) if details else None,
        tcf_vendor_755=details.vendor_755 if details else None,
        tcstring=details.tcstring if details else "", digest=digest(consent))


def consent_record(*, app_id: uuid.UUID, install_id: uuid.UUID | None, device_id: str | None,
                   applies_from: datetime, consent: Consent) -> bool:
    """Add the change unless the user's consent at `applies_from` says the same already; one
    statement. Whether a row was added."""
    row = record_row(app_id=app_id, install_id=install_id, device_id=device_id,
                     applies_from=applies_from, consent=consent)
    fields = ConsentRecord._meta.concrete_fields
    values = [field.get_db_prep_save(field.pre_save(row, True), connection) for field in fields]
    key = [row.app_id, row.install_id, row.device_id, row.applies_from]
    key_fields = [ConsentRecord._meta.get_field(name)
                  for name in ("app", "install_id", "device_id", "applies_from")]
    key = [field.get_db_prep_value(value, connection)
           for field, value in zip(key_fields, key, strict=True)]
    with connection.cursor() as cursor:
        cursor.execute(_conditional_insert(connection.vendor), [*values, *key, row.digest])
        return cursor.rowcount == 1


@lru_cache(maxsize=2)
def _conditional_insert(vendor: str) -> str:
    quote = connection.ops.quote_name
    table = quote(ConsentRecord._meta.db_table)
    fields = ConsentRecord._meta.concrete_fields
    # PostgreSQL types parameters from their use: in a SELECT list they need a cast (a NULL
    # would be text, which a uuid column refuses). SQLite's CAST would change the values.
    placeholders = ", ".join(
        f"CAST(%s AS {field.db_type(connection)})" if vendor == "postgresql" else "%s"
        for field in fields)
    columns = ", ".join(quote(field.column) for field in fields)
    return (
        f"INSERT INTO {table} ({columns}) SELECT {placeholders} WHERE NOT EXISTS ("
        f"SELECT 1 FROM (SELECT digest FROM {table} WHERE app_id = %s "
        "AND (install_id = %s OR device_id = %s) AND applies_from <= %s "
        "ORDER BY applies_from DESC, id DESC LIMIT 1) latest WHERE latest.digest = %s)")


def consents_record(*, app_id: uuid.UUID, install_id: uuid.UUID | None,
                    device_id: str | None, changes: Sequence[tuple[datetime, Consent]]) -> int:
    """An event batch's consents, each applying from its event's time. Consecutive repeats
    collapse; the first change is added unless it repeats the stored consent, the others (each
    differing from the one before) in one more INSERT. How many rows were added."""
    ordered = sorted(changes, key=lambda change: change[0])
    collapsed: list[tuple[datetime, Consent]] = []
    for moment, consent in ordered:
        if not collapsed or collapsed[-1][1] != consent:
            collapsed.append((moment, consent))
    if not collapsed:
        return 0
    first_moment, first = collapsed[0]
    added = int(consent_record(app_id=app_id, install_id=install_id, device_id=device_id,
                               applies_from=first_moment, consent=first))
    rest = [record_row(app_id=app_id, install_id=install_id, device_id=device_id,
                       applies_from=moment, consent=consent) for moment, consent in collapsed[1:]]
    if rest:
        ConsentRecord.objects.bulk_create(rest)
    return added + len(rest)


# Who a POST /consent is about, as tracking knows its installs: (app_id, install_id, device_id)
# -> (install_id, device_id), the device id as installs store it and the install id filled in
# when the device has one, or None for an install id that is not one of the app's installs.
# Tracking registers its reader at startup (tracking/apps.py): tracking already imports consent
# to record what the SDK sends, and a reader handed in keeps the dependency one way.
IdentityReader = Callable[[uuid.UUID, uuid.UUID | None, str | None],
                          tuple[uuid.UUID | None, str | None] | None]
_identity_reader: IdentityReader | None = None


def identity_reader_register(reader: IdentityReader | None) -> None:
    """Use `reader` to find who a consent change is about (None: tracking is not installed)."""
    global _identity_reader
    _identity_reader = reader


@dataclass(frozen=True)
class ConsentChange:
    install_id: uuid.UUID | None
    device_id: str | None
    consent: Consent
    applies_from: datetime
    recorded: bool  # False when it repeated the consent in force


def consent_change(*, app_id: uuid.UUID, install_id: uuid.UUID | None = None,
                   device_id: str | None = None, consent: Consent, now: datetime
                   ) -> ConsentChange:
    """POST /consent: the user's consent from now on. An install id must be one of the app's
    installs (else NotFound); a device id may precede its install (the SDK sends consent
    before its first launch is reported), and is tied to the install when there is one. A
    device id that identifies nobody (zeros) without an install id is a ValidationFailed."""
    identity = (install_id, device_id) if _identity_reader is None else _identity_reader(
        app_id, install_id, device_id)
    if identity is None:
        raise NotFound("Install not found for this app.",
                       {"install_id": ["No install of this app has this id."]})
    install_id, device_id = identity
    if install_id is None and not device_id:
        raise ValidationFailed("Invalid input: device_id.", {"device_id": [
            "A zeroed advertising id identifies nobody; send install_id."]})
    recorded = consent_record(app_id=app_id, install_id=install_id, device_id=device_id,
                              applies_from=now, consent=consent)
    return ConsentChange(install_id=install_id, device_id=device_id, consent=consent,
                         applies_from=now, recorded=recorded)


def erase(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID] = (),
          device_ids: Iterable[str] = ()) -> int:
    """Delete every consent row of the identity (an erasure keeps no identity, and a consent
    row without one means nothing). How many rows went."""
    install_ids, device_ids = list(install_ids), [d for d in device_ids if d]
    if not install_ids and not device_ids:
        return 0
    with transaction.atomic():
        deleted, _ = ConsentRecord.objects.filter(
            Q(install_id__in=install_ids) | Q(device_id__in=device_ids), app_id=app_id,
        ).delete()
    return deleted
