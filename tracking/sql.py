"""The tracking hot paths' database work, each in its two versions side by side: the click
write, the waterfall's lookup, a repeat install's read, the event link, the claim of a batch's
client event ids (one statement on both databases) and the event batch write.

Each function runs the PostgreSQL statement first: plain SQL, prepared on first use through
attribution_site/prepared.py (an ORM query costs ~0.6 ms of Python, the same statement through
the cursor ~0.1 ms, and preparing it saves the server its planning), one round trip each. Below
it, the ORM equivalent for other databases (the SQLite first-run default), which must give the
same rows: tests run both. Services call one function here per statement; nothing else on the
hot paths asks which database it is on.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import connection, transaction

from attribution_site import prepared
from tracking.event_batch import CleanEvent
from tracking.models import Click, ClickArchive, Event, EventKey, Install, Reengagement
from tracking.waterfall_inputs import ClickCandidate


def _postgresql() -> bool:
    return connection.vendor == "postgresql"


# --- A click: the hot store and the archive, both or neither -----------------------------------

CLICK_COLUMNS = ("id", "app_id", "campaign_id", "media_source", "adset", "ad",
                 "advertising_id", "ip", "ip_prefix", "user_agent", "accept_language",
                 "os_family", "os_version", "device_model", "fingerprint", "clicked_at",
                 "link_id")
_COLUMNS = ", ".join(CLICK_COLUMNS)
_HOT = (f"hot AS (INSERT INTO {Click._meta.db_table} ({_COLUMNS}) "
        f"VALUES ({', '.join(['%s'] * len(CLICK_COLUMNS))}) RETURNING {_COLUMNS})")
_ARCHIVE_FROM = f"INSERT INTO {ClickArchive._meta.db_table} ({_COLUMNS}) SELECT {_COLUMNS} FROM"
CLICK_INSERT = f"WITH {_HOT} {_ARCHIVE_FROM} hot"
# The same write, committed without waiting for the WAL flush: `set_config(..., true)` lasts
# only for the statement's own transaction (so only outside an atomic block, where it would
# reach the caller's other writes), the connection's setting is untouched, and the click is
# still committed, and visible to the install that follows, before the 302 leaves. The flush
# was half of PostgreSQL's work per click (docs/decisions.md). The archive insert reads
# `async_commit` because PostgreSQL skips a SELECT in WITH that nothing reads.
CLICK_INSERT_ASYNC = ("WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', "
                      f"true)), {_HOT} {_ARCHIVE_FROM} hot, async_commit")


def click_insert(values: dict) -> None:
    """Store a click (`values` by CLICK_COLUMNS) in the hot store and the archive; committed
    when this returns, unless the caller holds a transaction."""
    if _postgresql():  # one statement writes both stores atomically
        async_commit = settings.CLICK_ASYNC_COMMIT and not connection.in_atomic_block
        prepared.execute(CLICK_INSERT_ASYNC if async_commit else CLICK_INSERT,
                         [values[c] for c in CLICK_COLUMNS])
        return
    with transaction.atomic():
        Click.objects.create(**values)
        ClickArchive.objects.create(**values)


# --- The waterfall's lookup ------------------------------------------------------------------

CANDIDATE_FIELDS = ("id", "clicked_at", "media_source", "campaign_id", "adset", "ad",
                    "advertising_id", "ip", "fingerprint", "os_family", "os_version",
                    "device_model", "accept_language", "link_id")
MAX_DEVICE_CANDIDATES = 20
MAX_NETWORK_CANDIDATES = 50


@dataclass(frozen=True)
class AttributionInputs:
    """Everything the waterfall reads for one install request."""

    existing_install_id: uuid.UUID | None
    referrer_click: ClickCandidate | None
    device_clicks: list[ClickCandidate]
    network_clicks: list[ClickCandidate]


def _candidates(rows) -> list[ClickCandidate]:
    """Rows of CANDIDATE_FIELDS, which are ClickCandidate's fields in its order."""
    return [ClickCandidate._make(row) for row in rows]


_CANDIDATE_COLUMNS = ("id, clicked_at, media_source, campaign_id, adset, ad, advertising_id, "
                      "host(ip), fingerprint, os_family, os_version, device_model, "
                      "accept_language, link_id")
_INSTALL_PART = (
    f"SELECT 'install', id, NULL::timestamptz, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
    f" NULL, NULL, NULL, NULL::uuid FROM {Install._meta.db_table} "
    "WHERE app_id = %s AND device_id = %s")
# Every lookup bounds `clicked_at` by the window, although a click id alone names one click:
# on time partitions (docs/decisions.md, "Time partitions") the bounds let PostgreSQL skip every
# partition outside the window when the statement runs (its generic plan prunes at executor
# start), where the id alone probed every partition's primary key. A referrer's click outside
# the window does not count (attribution.referrer_match), so finding none is the same answer.
_REFERRER_PART = (f"SELECT 'referrer', {_CANDIDATE_COLUMNS} FROM {Click._meta.db_table} "
                  "WHERE app_id = %s AND id = %s AND clicked_at >= %s AND clicked_at <= %s")
_DEVICE_PART = (f"(SELECT 'device', {_CANDIDATE_COLUMNS} FROM {Click._meta.db_table} "
                "WHERE app_id = %s AND advertising_id = %s AND clicked_at >= %s AND "
                f"clicked_at <= %s ORDER BY clicked_at DESC LIMIT {MAX_DEVICE_CANDIDATES})")
_NETWORK_PART = (f"(SELECT 'network', {_CANDIDATE_COLUMNS} FROM {Click._meta.db_table} "
                 "WHERE app_id = %s AND ip_prefix = %s AND clicked_at >= %s AND "
                 f"clicked_at <= %s ORDER BY clicked_at DESC LIMIT {MAX_NETWORK_CANDIDATES})")


def attribution_inputs(*, app_id: uuid.UUID, device_id: str | None,
                       referrer_click_id: uuid.UUID | None, ip_prefix: str, since: datetime,
                       until: datetime) -> AttributionInputs:
    """The device's install (if any), the referrer's click and the candidate clicks, in one
    round trip on PostgreSQL: each statement to the database costs the install path about as
    much again in Python and server time as the lookup itself."""
    if _postgresql():
        parts, params = [], []
        if device_id:
            parts += [_INSTALL_PART, _DEVICE_PART]
            params += [app_id, device_id, app_id, device_id, since, until]
        if referrer_click_id:
            parts.append(_REFERRER_PART)
            params += [app_id, referrer_click_id, since, until]
        if ip_prefix:
            parts.append(_NETWORK_PART)
            params += [app_id, ip_prefix, since, until]
        rows = prepared.fetch(" UNION ALL ".join(parts), params) if parts else []
        by_kind: dict[str, list] = {"install": [], "referrer": [], "device": [], "network": []}
        for row in rows:
            by_kind[row[0]].append(row[1:])
        referrer = _candidates(by_kind["referrer"])
        return AttributionInputs(
            existing_install_id=by_kind["install"][0][0] if by_kind["install"] else None,
            referrer_click=referrer[0] if referrer else None,
            device_clicks=_candidates(by_kind["device"]),
            network_clicks=_candidates(by_kind["network"]))
    return AttributionInputs(
        existing_install_id=(Install.objects.filter(app_id=app_id, device_id=device_id)
                             .values_list("id", flat=True).first() if device_id else None),
        referrer_click=(click_by_id(app_id=app_id, click_id=referrer_click_id, since=since,
                                    until=until) if referrer_click_id else None),
        device_clicks=(clicks_for_device(app_id=app_id, advertising_id=device_id,
                                         since=since, until=until) if device_id else []),
        network_clicks=(clicks_for_network(app_id=app_id, ip_prefix=ip_prefix, since=since,
                                           until=until) if ip_prefix else []))


def click_by_id(*, app_id: uuid.UUID, click_id: uuid.UUID, since: datetime,
                until: datetime) -> ClickCandidate | None:
    """The click, if it is the app's and was made in [since, until]."""
    rows = (Click.objects.filter(app_id=app_id, id=click_id, clicked_at__gte=since,
                                 clicked_at__lte=until).values_list(*CANDIDATE_FIELDS))
    found = _candidates(rows[:1])
    return found[0] if found else None


def clicks_for_device(*, app_id: uuid.UUID, advertising_id: str, since: datetime,
                      until: datetime) -> list[ClickCandidate]:
    rows = (Click.objects.filter(app_id=app_id, advertising_id=advertising_id,
                                 clicked_at__gte=since, clicked_at__lte=until)
            .order_by("-clicked_at").values_list(*CANDIDATE_FIELDS))
    return _candidates(rows[:MAX_DEVICE_CANDIDATES])


def clicks_for_network(*, app_id: uuid.UUID, ip_prefix: str, since: datetime,
                       until: datetime) -> list[ClickCandidate]:
    rows = (Click.objects.filter(app_id=app_id, ip_prefix=ip_prefix, clicked_at__gte=since,
                                 clicked_at__lte=until)
            .order_by("-clicked_at").values_list(*CANDIDATE_FIELDS))
    return _candidates(rows[:MAX_NETWORK_CANDIDATES])


# --- A repeat install ------------------------------------------------------------------------

_REPEAT_FIELDS = ("id", "app_id", "device_id", "platform", "installed_at", "match_type",
                  "confidence", "is_organic", "media_source", "campaign_id",
                  "attributed_touch_time", "deep_link")
_REPEAT_SQL = (
    f"SELECT {', '.join(_REPEAT_FIELDS)}, (SELECT max(clicked_at) FROM "
    f"{Reengagement._meta.db_table} r WHERE r.install_id = i.id) "
    f"FROM {Install._meta.db_table} i WHERE i.id = %s")


def install_for_repeat(*, install_id: uuid.UUID) -> tuple[Install, datetime | None]:
    """A known device's install, with what a repeat answers (its other fields deferred), and
    the click time of its latest re-engagement (None before the first). One statement on
    PostgreSQL, where the ORM takes three queries."""
    if _postgresql():
        [row] = prepared.fetch(_REPEAT_SQL, [install_id])
        *values, deep_link, latest = row
        # `from_db` takes converted values: Django's connection reads jsonb as text.
        if isinstance(deep_link, str):
            deep_link = json.loads(deep_link)
        return Install.from_db(connection.alias, _REPEAT_FIELDS, (*values, deep_link)), latest
    install = Install.objects.only(*_REPEAT_FIELDS).get(id=install_id)
    return install, (Reengagement.objects.filter(install_id=install_id)
                     .order_by("-clicked_at").values_list("clicked_at", flat=True).first())


# --- Events ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class BatchStart:
    """What an event batch reads and claims before its rows are written."""

    # (install id, media source, campaign, whether it is blocked) of the device's install:
    # a blocked install's events are marked (Event.is_blocked).
    link: tuple[uuid.UUID, str | None, str | None, bool] | None
    claimed: set[str]  # the client event ids this batch claimed
    ids: list[int]  # PostgreSQL: ids drawn for up to the batch's size; elsewhere none


# The link, the claim and the ids in one prepared statement: each statement costs a batch a
# round trip and, for the claim written as a VALUES list, a parse and plan every time
# (docs/benchmarks.md, "Event batches in one statement"). The ids to claim come as one JSON
# array (a Python list is dumped element by element: 0.08 ms for a hundred, JSON 2 µs). Ids
# are drawn for the whole batch before the claim says how many it keeps: the unused ones are
# gaps, as after any rollback.
_BATCH_START_SQL = (
    f"WITH claimed AS (INSERT INTO {EventKey._meta.db_table} (app_id, event_id) "
    "SELECT %s, k FROM jsonb_array_elements_text(%s::jsonb) WITH ORDINALITY AS u(k, n) "
    "ORDER BY n "
    "ON CONFLICT DO NOTHING RETURNING event_id) "
    "SELECT link.*, ARRAY(SELECT event_id FROM claimed), ARRAY(SELECT nextval((SELECT "
    f"pg_get_serial_sequence('{Event._meta.db_table}', 'id')::regclass)) "
    "FROM generate_series(1, %s)) "
    "FROM (SELECT 1) AS one LEFT JOIN (SELECT id, media_source, campaign_id, "
    f"fraud_status = 'blocked' FROM {Install._meta.db_table} "
    "WHERE app_id = %s AND device_id = %s) AS link ON true")


def event_batch_start(*, app_id: uuid.UUID, device_id: str | None, event_ids: set[str],
                      size: int) -> BatchStart:
    """The device's install link, the claim of the batch's client event ids and, on
    PostgreSQL, `size` new event ids: one statement and one row there. Run it inside the
    transaction that writes the events. A claim takes the ids in one order for every batch
    (sorted), so two batches sharing ids wait on each other and never deadlock; an id another
    batch holds uncommitted makes this one wait until that batch commits (it stays theirs) or
    rolls back (it becomes ours)."""
    ordered = sorted(event_ids)
    if _postgresql():
        [(install_id, source, campaign, blocked, claimed, ids)] = prepared.fetch(
            _BATCH_START_SQL, [app_id, json.dumps(ordered), size, app_id, device_id])
        link = (install_id, source, campaign, blocked) if install_id is not None else None
        return BatchStart(link, set(claimed), ids)
    return BatchStart(install_link_for_device(app_id=app_id, device_id=device_id)
                      if device_id else None, _event_keys_claim(app_id, ordered), [])


def install_link_for_device(*, app_id: uuid.UUID, device_id: str
                            ) -> tuple[uuid.UUID, str | None, str | None, bool] | None:
    """BatchStart.link through the ORM: the path of databases other than PostgreSQL, where
    event_batch_start reads it in its one statement."""
    row = (Install.objects.filter(app_id=app_id, device_id=device_id)
           .values_list("id", "media_source", "campaign_id", "fraud_status").first())
    return (*row[:3], row[3] == "blocked") if row else None


def _event_keys_claim(app_id: uuid.UUID, ordered: list[str]) -> set[str]:
    """The claim on databases other than PostgreSQL (SQLite 3.35 or newer)."""
    if not ordered:
        return set()
    app = EventKey._meta.get_field("app").get_db_prep_value(app_id, connection)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {EventKey._meta.db_table} (app_id, event_id) VALUES "
            f"{', '.join(['(%s, %s)'] * len(ordered))} ON CONFLICT DO NOTHING RETURNING event_id",
            [value for event_id in ordered for value in (app, event_id)])
        return {event_id for (event_id,) in cursor.fetchall()}


_EVENT_COLUMNS = ("id", "app_id", "install_id", "device_id", "event_id", "event_name",
                  "properties", "session_id", "occurred_at", "received_at", "revenue_amount",
                  "revenue_currency", "is_blocked")
_EVENT_COPY = f"COPY {Event._meta.db_table} ({', '.join(_EVENT_COLUMNS)}) FROM STDIN"
# COPY's text format, written here rather than value by value through psycopg's `write_row`,
# which dumps each of a row's 13 values on its own: for a batch of a hundred, the COPY took
# 0.64 ms of CPU that way and 0.50 ms with these lines (docs/benchmarks.md, "Event batches in
# one statement"). Text escapes as PostgreSQL's COPY reads them; NULL is \N.
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"})
_COPY_NULL = "\\N"


def _copy_text(value) -> str:
    if value is None:
        return _COPY_NULL
    text = value if type(value) is str else str(value)
    # Four scans at C speed; `translate` looks up each character (1.5 µs for a property set).
    if "\\" in text or "\t" in text or "\n" in text or "\r" in text:
        return text.translate(_COPY_ESCAPES)
    return text


def _copy_rows(ids: list[int], *, app_id, install_id, device_id, events: list[CleanEvent],
               received_at: datetime, is_blocked: bool) -> str:
    """The batch's rows in _EVENT_COLUMNS' order, as COPY's text format."""
    shared = f"\t{app_id}\t{_copy_text(install_id)}\t{_copy_text(device_id)}\t"
    received = f"\t{received_at.isoformat()}\t"
    blocked = "\tt\n" if is_blocked else "\tf\n"
    return "".join([
        f"{event_id}{shared}{_copy_text(e.event_id)}\t{_copy_text(e.event_name)}\t"
        f"{_copy_text(e.properties_json)}\t{e.session_id}\t{e.occurred_at.isoformat()}"
        f"{received}{_copy_text(e.revenue_amount)}\t{_copy_text(e.revenue_currency)}{blocked}"
        for event_id, e in zip(ids, events, strict=True)])


def events_insert(*, app_id: uuid.UUID, install_id: uuid.UUID | None, device_id: str | None,
                  events: list[CleanEvent], received_at: datetime, ids: list[int],
                  is_blocked: bool = False) -> list[int]:
    """Write a batch in one bulk statement; the new rows' ids, in batch order.

    On PostgreSQL the rows take the first of `ids` (drawn by event_batch_start) and are
    written with COPY, several times cheaper than a multi-row INSERT for a batch of a hundred.
    """
    if not events:
        return []
    if _postgresql():
        ids = ids[:len(events)]
        with connection.cursor() as cursor:
            with cursor.cursor.copy(_EVENT_COPY) as copy:
                copy.write(_copy_rows(ids, app_id=app_id, install_id=install_id,
                                      device_id=device_id, events=events,
                                      received_at=received_at, is_blocked=is_blocked))
        return ids
    rows = Event.objects.bulk_create([
        Event(app_id=app_id, install_id=install_id, device_id=device_id,
              event_id=e.event_id, event_name=e.event_name, properties=e.properties,
              session_id=e.session_id, occurred_at=e.occurred_at,
              received_at=received_at, revenue_amount=e.revenue_amount,
              revenue_currency=e.revenue_currency, is_blocked=is_blocked) for e in events])
    return [row.id for row in rows]
