"""CSV exports of raw installs, events and revenue events (spec: Analytics endpoints,
`/analytics/export?type=`).

Rows stream from a server-side cursor into csv.writer and leave in blocks of about 64 KB, so
memory stays flat whatever the row count. One header row, one row per record, RFC 4180
quoting, times as ISO 8601 UTC with a Z, booleans as true/false, empty cells for nulls. Text
that came from an SDK or a click URL and starts with = + - @ or a control character is
prefixed with an apostrophe so a spreadsheet shows it instead of evaluating it as a formula.
The request is fully validated before the response starts: errors are JSON envelopes.
"""

from __future__ import annotations

import csv
import logging
from collections.abc import Callable, Iterator
from datetime import datetime
from decimal import Decimal

from django.http import StreamingHttpResponse
from django.utils.text import slugify

from analytics.money import RateBook
from analytics.queries import Period, known_currencies, rate_book
from tracking import reporting

logger = logging.getLogger(__name__)

BLOCK_CHARS = 64 * 1024
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
CONVERTED = Decimal("0.000001")


def _text(value) -> str:
    if value is None:
        return ""
    value = str(value)
    return "'" + value if value.startswith(FORMULA_START) else value


def _plain(value) -> str:
    return "" if value is None else str(value)


def _time(value: datetime | None) -> str:
    if value is None:
        return ""
    return value.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _bool(value: bool | None) -> str:
    return "" if value is None else ("true" if value else "false")


def _decimal(value: Decimal | None) -> str:
    return "" if value is None else format(value, "f")


# header, then one formatter per column of the reporting function's tuples
INSTALL_COLUMNS: list[tuple[str, Callable]] = [
    ("install_id", _plain), ("installed_at", _time), ("device_id", _text),
    ("platform", _text), ("match_type", _plain), ("confidence", _plain),
    ("is_organic", _bool), ("media_source", _text), ("campaign_id", _text), ("adset", _text),
    ("ad", _text), ("click_id", _plain), ("attributed_touch_time", _time),
    ("sdk_version", _text), ("os_version", _text), ("device_model", _text)]
EVENT_COLUMNS: list[tuple[str, Callable]] = [
    ("event_id", _plain), ("client_event_id", _text), ("occurred_at", _time),
    ("received_at", _time), ("event_name", _text), ("device_id", _text),
    ("install_id", _plain), ("session_id", _plain), ("revenue_amount", _decimal),
    ("revenue_currency", _text), ("properties", _plain)]
REVENUE_HEADER = ["event_id", "occurred_at", "event_name", "device_id", "install_id",
                  "source_type", "media_source", "campaign_id", "amount", "currency",
                  "report_currency", "amount_in_report_currency"]


class _Block:
    """The file-like target of csv.writer: collects lines until a block is worth sending."""

    def __init__(self):
        self.parts: list[str] = []
        self.size = 0

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)

    def take(self) -> bytes:
        block = "".join(self.parts).encode()
        self.parts, self.size = [], 0
        return block


def _blocks(header: list[str], rows: Iterator[list[str]]) -> Iterator[bytes]:
    block = _Block()
    writer = csv.writer(block)
    writer.writerow(header)
    for row in rows:
        writer.writerow(row)
        if block.size >= BLOCK_CHARS:
            yield block.take()
    yield block.take()


def installs_csv(*, period: Period) -> Iterator[bytes]:
    formats = [f for _, f in INSTALL_COLUMNS]
    rows = reporting.installs_for_export(app_id=period.app_id, start=period.start,
                                         end=period.end)
    return _blocks([name for name, _ in INSTALL_COLUMNS],
                   ([f(v) for f, v in zip(formats, row, strict=True)] for row in rows))


def events_csv(*, period: Period) -> Iterator[bytes]:
    formats = [f for _, f in EVENT_COLUMNS]
    rows = reporting.events_for_export(app_id=period.app_id, start=period.start,
                                       end=period.end)
    return _blocks([name for name, _ in EVENT_COLUMNS],
                   ([f(v) for f, v in zip(formats, row, strict=True)] for row in rows))


def revenue_csv(*, period: Period, currency: str) -> Iterator[bytes]:
    book = rate_book(target=currency, currencies=known_currencies(), through=period.end)
    rows = reporting.events_for_export(app_id=period.app_id, start=period.start,
                                       end=period.end, revenue_only=True)
    return _blocks(REVENUE_HEADER, _revenue_rows(rows, book))


def _revenue_rows(rows: Iterator[tuple], book: RateBook) -> Iterator[list[str]]:
    converted: dict[tuple, Decimal | None] = {}  # rate per (currency, day), looked up once
    for (event_id, occurred_at, event_name, device_id, install_id, is_organic, media_source,
         campaign_id, amount, currency) in rows:
        if install_id is None:
            source_type, media_source, campaign_id = "no_install", None, None
        elif is_organic:
            source_type, media_source, campaign_id = "organic", None, None
        else:
            source_type = "paid"
        key = (currency or "", occurred_at.date())
        if key not in converted:
            converted[key] = book.convert(Decimal(1), *key)
        factor = converted[key]
        yield [str(event_id), _time(occurred_at), _text(event_name), _text(device_id),
               _plain(install_id), source_type, _text(media_source), _text(campaign_id),
               _decimal(amount), _text(currency), book.target,
               "" if factor is None else _decimal((amount * factor).quantize(CONVERTED))]


def csv_response(*, period: Period, kind: str, currency: str,
                 app_name: str) -> StreamingHttpResponse:
    if kind == "installs":
        blocks = installs_csv(period=period)
    elif kind == "events":
        blocks = events_csv(period=period)
    else:
        blocks = revenue_csv(period=period, currency=currency)
    name = f"{slugify(app_name) or 'app'}-{kind}-{period.start}-to-{period.end}.csv"
    response = StreamingHttpResponse(blocks, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # let a reverse proxy pass blocks on as they come
    return response
