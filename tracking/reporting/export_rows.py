"""Raw rows for the CSV exports (analytics.exports), streamed from a server-side cursor with
times formatted by the database."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from datetime import date

from django.db import connections, transaction
from django.db.models import CharField, Func, TextField, Value
from django.db.models.functions import Cast

from tracking.models import Event, Install
from tracking.reporting.rollup_rows import day_bounds

EXPORT_CHUNK_ROWS = 5_000


class IsoUtc(Func):
    """A timestamp as ISO 8601 UTC text with milliseconds and a Z, formatted by the database:
    parsing millions of timestamps into datetimes only to print them again is most of an
    export's time."""

    output_field = CharField()
    template = ("to_char(%(expressions)s AT TIME ZONE 'UTC', "
                "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')")

    def as_sqlite(self, compiler, connection, **extra):
        # The format goes as a parameter: a literal % in the SQL text breaks Django's debug
        # logging (DEBUG=1, as `make run` runs), which formats the statement with %.
        return Func(Value("%Y-%m-%dT%H:%M:%fZ"), *self.get_source_expressions(),
                    function="strftime", output_field=CharField()
                    ).as_sql(compiler, connection, **extra)


# Times come back as ISO 8601 text (see IsoUtc), in the order of these names. Each row ends
# with the fraud marks analytics.counting reads: an install's status and reasons; an event's
# own mark (an event of a blocked install) and its install's status and reasons.
INSTALL_EXPORT_FIELDS = (
    "id", "installed_at", "device_id", "platform", "match_type", "confidence", "is_organic",
    "media_source", "campaign_id", "adset", "ad", "click_id", "attributed_touch_time",
    "sdk_version", "os_version", "device_model", "platform_metadata", "fraud_status",
    "fraud_reasons")
EVENT_EXPORT_FIELDS = (
    "id", "event_id", "occurred_at", "received_at", "event_name", "device_id", "install_id",
    "session_id", "revenue_amount", "revenue_currency", "properties", "is_blocked",
    "install__fraud_status", "install__fraud_reasons")
REVENUE_EXPORT_FIELDS = (
    "id", "occurred_at", "event_name", "device_id", "install_id", "install__is_organic",
    "install__media_source", "install__campaign_id", "revenue_amount", "revenue_currency",
    "is_blocked", "install__fraud_status", "install__fraud_reasons")
_AS_TEXT = {
    "installed_at": IsoUtc("installed_at"),
    "attributed_touch_time": IsoUtc("attributed_touch_time"),
    "occurred_at": IsoUtc("occurred_at"),
    "received_at": IsoUtc("received_at"),
    # The JSON as stored, as text: decoding it only to encode it again would halve the speed.
    "properties": Cast("properties", TextField()),
    "platform_metadata": Cast("platform_metadata", TextField()),
    # Nearly always "[]": the export reads the text and decodes only the others.
    "fraud_reasons": Cast("fraud_reasons", TextField()),
    "install__fraud_reasons": Cast("install__fraud_reasons", TextField()),
}


def _text_values(rows, fields: Sequence[str]):
    renamed = {f"{name}_text": _AS_TEXT[name] for name in fields if name in _AS_TEXT}
    return rows.annotate(**renamed).values_list(
        *(f"{name}_text" if name in _AS_TEXT else name for name in fields))


def installs_for_export(*, app_id: uuid.UUID, start: date, end: date) -> Iterator[tuple]:
    """Installs of days start..end inclusive, oldest first, as tuples of INSTALL_EXPORT_FIELDS."""
    since, until = day_bounds(start)[0], day_bounds(end)[1]
    rows = (Install.objects.filter(app_id=app_id, installed_at__gte=since, installed_at__lt=until)
            .order_by("installed_at", "id"))
    return _stream(_text_values(rows, INSTALL_EXPORT_FIELDS))


def events_for_export(*, app_id: uuid.UUID, start: date, end: date,
                      revenue_only: bool = False) -> Iterator[tuple]:
    """Events of days start..end (by occurred_at), oldest first, as tuples of
    EVENT_EXPORT_FIELDS, or of REVENUE_EXPORT_FIELDS for revenue events only."""
    since, until = day_bounds(start)[0], day_bounds(end)[1]
    rows = (Event.objects.filter(app_id=app_id, occurred_at__gte=since, occurred_at__lt=until)
            .order_by("occurred_at", "id"))
    if revenue_only:
        # About one event in twenty-five has revenue, and each needs its install: a plan for
        # the whole result (one scan, a hash join, a sort) beats the default fast-start plan
        # (an install lookup per row) by half, for a first byte a second or two later.
        return _stream(_text_values(rows.filter(revenue_amount__isnull=False),
                                    REVENUE_EXPORT_FIELDS), whole_result_plan=True)
    return _stream(_text_values(rows, EVENT_EXPORT_FIELDS))


def _stream(rows, *, whole_result_plan: bool = False) -> Iterator[tuple]:
    # Inside a transaction PostgreSQL streams a server-side cursor; outside one Django declares
    # it WITH HOLD, which makes the server materialise the whole result before the first row.
    # The transaction is on the database the rows are read from (a report's: the replica).
    with transaction.atomic(using=rows.db):
        if whole_result_plan and connections[rows.db].vendor == "postgresql":
            with connections[rows.db].cursor() as cursor:
                cursor.execute("SET LOCAL cursor_tuple_fraction = 1.0")
        yield from rows.iterator(chunk_size=EXPORT_CHUNK_ROWS)


