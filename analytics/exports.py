"""CSV exports of raw installs, events, revenue events and blocked installs (spec: Analytics
endpoints, `/analytics/export?type=`; blocked installs: docs/fraud.md).

Every row is listed, and the installs, events and revenue rows end with the fraud marks of
their install and whether they count (analytics.counting; docs/metrics.md, "What counts"):
summing the rows whose `counted` is true gives the reports' figures, and the rest are there,
marked, rather than dropped.

Rows stream from a server-side cursor into csv.writer and leave in blocks of about 64 KB, so
memory stays flat whatever the row count. One header row, one row per record, RFC 4180
quoting, times as ISO 8601 UTC with a Z, booleans as true/false, amounts with six decimals
(docs/analytics.md, "Amounts in exports carry six decimals"), empty cells for nulls. Text
that came from an SDK or a click URL and starts with = + - @ or a control character is
prefixed with an apostrophe so a spreadsheet shows it instead of evaluating it as a formula.
The request is fully validated before the response starts: errors are JSON envelopes.
"""

from __future__ import annotations

import csv
import json
import uuid
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from functools import lru_cache
from itertools import islice

from django.http import StreamingHttpResponse
from django.utils.text import slugify

from analytics import counting
from analytics.money import RateBook
from analytics.queries import Period, known_currencies, rate_book
from attribution_site.replica import carried
from consent import selectors as consent_selectors
from tracking.reporting import export_rows, fraud_rows

BLOCK_CHARS = 64 * 1024
CONVERTED = Decimal("0.000001")
FORMULA_START = frozenset("=+-@\t\r")


def _text(value: str | None) -> str | None:
    """Text from an SDK or a click URL, defused for spreadsheets (csv writes None as "")."""
    if value and value[0] in FORMULA_START:
        return "'" + value
    return value


BOOL = {True: "true", False: "false", None: None}
INSTALL_HEADER = ["install_id", "installed_at", "device_id", "platform", "match_type",
                  "confidence", "is_organic", "media_source", "campaign_id", "adset", "ad",
                  "click_id", "attributed_touch_time", "sdk_version", "os_version",
                  "device_model", "gdpr_applies", "ad_user_data", "ad_personalization",
                  "platform_metadata", "fraud_status", "fraud_reasons", "counted"]
# Installs whose consent is read with one query (docs/privacy.md, "Consent").
CONSENT_CHUNK_ROWS = 2_000
EVENT_HEADER = ["event_id", "client_event_id", "occurred_at", "received_at", "event_name",
                "device_id", "install_id", "session_id", "revenue_amount", "revenue_currency",
                "properties", "fraud_status", "fraud_reasons", "counted"]
BLOCKED_HEADER = ["install_id", "installed_at", "device_id", "platform", "fraud_status",
                  "media_source", "campaign_id", "match_type", "attributed_touch_time",
                  "refused_click_time", "reasons", "first_reason", "first_reason_value", "ip"]
REVENUE_HEADER = ["event_id", "occurred_at", "event_name", "device_id", "install_id",
                  "source_type", "media_source", "campaign_id", "amount", "currency",
                  "report_currency", "amount_in_report_currency", "fraud_status",
                  "fraud_reasons", "counted"]


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


# Cached: nearly every row of an export has one of a few (status, reasons) pairs, and these
# cells are worked out per row of exports of millions of rows.
@lru_cache(maxsize=1024)
def _fraud_cells(status: str | None, reasons: str | None) -> tuple:
    """fraud_status, fraud_reasons (the codes of the stored JSON text, space-separated, as the
    blocked installs' `reasons`) and counted; an event linked to no install has no status and
    counts."""
    codes = None
    if reasons is not None and reasons != "[]":
        codes = " ".join(r.get("reason", "") for r in json.loads(reasons)) or None
    return status, codes, BOOL[counting.counted(status)]


@lru_cache(maxsize=1024)
def _event_fraud_cells(is_blocked: bool, install_status: str | None,
                       reasons: str | None) -> tuple:
    return _fraud_cells(counting.event_status(is_blocked=is_blocked,
                                              install_status=install_status), reasons)


def _blocks(header: list[str], rows: Iterator[list]) -> Iterator[bytes]:
    # csv.writer turns every value with str() (UUID, int, Decimal of a fixed scale) and None
    # into "", in C: the rows below leave as much of the formatting to it as they can.
    block = _Block()
    writer = csv.writer(block)
    writer.writerow(header)
    for row in rows:
        writer.writerow(row)
        if block.size >= BLOCK_CHARS:
            yield block.take()
    yield block.take()


def installs_csv(*, period: Period) -> Iterator[bytes]:
    rows = export_rows.installs_for_export(app_id=period.app_id, start=period.start,
                                         end=period.end)
    return _blocks(INSTALL_HEADER, (
        [install_id, installed_at, _text(device_id), _text(platform), match_type, confidence,
         BOOL[is_organic], _text(media_source), _text(campaign_id), _text(adset), _text(ad),
         click_id, touch_time, _text(sdk_version), _text(os_version), _text(device_model),
         *_consent_cells(consent), platform_metadata, *_fraud_cells(status, reasons)]
        for (install_id, installed_at, device_id, platform, match_type, confidence, is_organic,
             media_source, campaign_id, adset, ad, click_id, touch_time, sdk_version,
             os_version, device_model, platform_metadata, status, reasons), consent
        in _with_consent(period.app_id, rows)))


def _with_consent(app_id: uuid.UUID, rows: Iterator[tuple]) -> Iterator[tuple]:
    """Each install row with the user's consent now (None when none was sent)."""
    while chunk := list(islice(rows, CONSENT_CHUNK_ROWS)):
        consents = consent_selectors.consents_at(
            [consent_selectors.Subject(app_id, row[0], row[2]) for row in chunk])
        yield from zip(chunk, consents, strict=True)


def _consent_cells(consent) -> list:
    if consent is None:
        return [None, None, None]
    return [BOOL[consent.gdpr_applies], BOOL[consent.ad_user_data],
            BOOL[consent.ad_personalization]]


def events_csv(*, period: Period) -> Iterator[bytes]:
    rows = export_rows.events_for_export(app_id=period.app_id, start=period.start,
                                       end=period.end)
    return _blocks(EVENT_HEADER, (
        [event_id, _text(client_event_id), occurred_at, received_at, _text(name),
         _text(device_id), install_id, session_id, amount, _text(currency), properties,
         *_event_fraud_cells(is_blocked, install_status, reasons)]
        for (event_id, client_event_id, occurred_at, received_at, name, device_id, install_id,
             session_id, amount, currency, properties, is_blocked, install_status,
             reasons) in rows))


def revenue_csv(*, period: Period, currency: str) -> Iterator[bytes]:
    book = rate_book(target=currency, currencies=known_currencies(), through=period.end)
    rows = export_rows.events_for_export(app_id=period.app_id, start=period.start,
                                       end=period.end, revenue_only=True)
    return _blocks(REVENUE_HEADER, _revenue_rows(rows, book))


def _revenue_rows(rows: Iterator[tuple], book: RateBook) -> Iterator[list]:
    factors: dict[tuple[str, str], Decimal | None] = {}  # per (currency, day), looked up once
    for (event_id, occurred_at, event_name, device_id, install_id, is_organic, media_source,
         campaign_id, amount, currency, is_blocked, install_status, reasons) in rows:
        status = counting.event_status(is_blocked=is_blocked, install_status=install_status)
        if not counting.counted(status):
            source_type = status  # counted apart, as the revenue report's rollups keep it
        elif install_id is None:
            source_type, media_source, campaign_id = "no_install", None, None
        elif is_organic:
            source_type, media_source, campaign_id = "organic", None, None
        else:
            source_type = "paid"
        key = (currency or "", occurred_at[:10])
        if key not in factors:
            factors[key] = book.convert(Decimal(1), key[0], date.fromisoformat(key[1]))
        factor = factors[key]
        yield [event_id, occurred_at, _text(event_name), _text(device_id), install_id,
               source_type, _text(media_source), _text(campaign_id), amount, _text(currency),
               book.target, None if factor is None else (amount * factor).quantize(CONVERTED),
               *_fraud_cells(status, reasons)]


def blocked_installs_csv(*, period: Period) -> Iterator[bytes]:
    """Blocked and post-attribution installs with their reasons (docs/fraud.md): `reasons`
    lists every code, `first_reason` and its value are what a rejected-install postback
    carries; a blocked install is stored organic, so its source and campaign are the refused
    claim's, and `refused_click_time` is that click's."""
    rows = fraud_rows.blocked_installs_for_export(app_id=period.app_id, start=period.start,
                                                  end=period.end)
    return _blocks(BLOCKED_HEADER, (
        [install_id, installed_at, _text(device_id), _text(platform), status,
         _text(media_source or refused_source), _text(campaign_id or refused_campaign),
         match_type, touch_time, refused_at,
         " ".join(r.get("reason", "") for r in reasons or ()),
         (reasons[0].get("reason") if reasons else None),
         (reasons[0].get("value") if reasons else None), ip]
        for (install_id, installed_at, device_id, platform, status, media_source, campaign_id,
             match_type, touch_time, reasons, ip, refused_source, refused_campaign,
             refused_at) in rows))


def csv_response(*, period: Period, kind: str, currency: str,
                 app_name: str) -> StreamingHttpResponse:
    if kind == "installs":
        blocks = installs_csv(period=period)
    elif kind == "events":
        blocks = events_csv(period=period)
    elif kind == "blocked_installs":
        blocks = blocked_installs_csv(period=period)
    else:
        blocks = revenue_csv(period=period, currency=currency)
    name = f"{slugify(app_name) or 'app'}-{kind}-{period.start}-to-{period.end}.csv"
    # The body is read after the view returns: `carried` keeps it on the view's database.
    response = StreamingHttpResponse(carried(blocks), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # let a reverse proxy pass blocks on as they come
    return response
