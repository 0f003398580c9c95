"""Each topic's rows, read from the app that owns them and shaped into the topic's columns
(raw_export/columns.py): installs with their consent at the install, events with their revenue
in US dollars, and the rest as their owners hand them over. No table is read here: tracking,
delivery, skan and apple_ads each expose a reader, consent and analytics a selector.

A topic reads either between two watermarks (the commit-ordered tables: installs, clicks,
events) or over a stamp window (layout.stamp_window: re-engagements, Apple Ads corrections,
delivery attempts, SKAdNetwork postbacks, ad spend). Rows come in the order of the time the service
received them. Tracking's rows come named (tracking/reporting/raw_rows.py); each is shaped here
into its topic's columns by name, in columns.py's order.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from analytics import costs as analytics_costs
from analytics import counting
from analytics import queries as analytics_queries
from analytics.money import PIVOT, RateBook
from apple_ads import selectors as apple_ads_selectors
from consent.selectors import Subject, apps_with_consent, consents_at
from delivery import selectors as delivery_selectors
from raw_export import columns, layout
from skan import selectors as skan_selectors
from tracking.changes import Watermark
from tracking.reporting import raw_rows

VERSION = columns.SCHEMA_VERSION
_SIX_PLACES = Decimal(1).scaleb(-columns.DECIMAL_SCALE)
_EPOCH_DAY = layout.EPOCH.date()
_DAY_MICROS = 86_400_000_000


@dataclass(frozen=True)
class Window:
    """What one run reads: rows committed after `after` and by `through`, or, for the topics
    without a commit order, stamped in [stamped_since, stamped_until)."""

    app_ids: tuple[uuid.UUID, ...]
    after: Watermark | None
    through: Watermark

    @property
    def stamps(self) -> tuple[datetime | None, datetime]:
        return layout.stamp_window(
            since_at=None if self.after is None else self.after.taken_at,
            until_at=self.through.taken_at)


def _chunks(rows: Iterator[tuple], size: int) -> Iterator[list[tuple]]:
    chunk: list[tuple] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _install_columns(row: raw_rows.InstallRow, consent) -> tuple:
    """INSTALLS' columns of an install and the consent it was recorded under (None: none)."""
    signals = ((None, None, None) if consent is None else
               (consent.gdpr_applies, consent.ad_user_data, consent.ad_personalization))
    return (row.app_id, row.id, row.installed_at, row.platform, row.match_type, row.is_organic,
            row.confidence, row.media_source, row.campaign_id, row.adset, row.ad, row.click_id,
            None if row.is_organic else "click", row.attributed_touch_time, row.trail_summary,
            row.losing_clicks, row.device_id, row.customer_user_id, row.ip, row.user_agent,
            row.os_version, row.device_model, row.language, row.sdk_version, row.att_status,
            *signals, row.fraud_status, row.fraud_reasons, counting.counted(row.fraud_status),
            VERSION)


def installs(window: Window, size: int, *, fraud_status: str | None = None
             ) -> Iterator[list[tuple]]:
    rows = raw_rows.installs(app_ids=window.app_ids, after=window.after, through=window.through,
                             fraud_status=fraud_status)
    # Most apps never send consent: their installs need no lookup at all.
    with_consent = {str(app_id) for app_id in apps_with_consent(window.app_ids)}
    for chunk in _chunks(rows, size):
        consents = [None] * len(chunk)
        if with_consent:
            # The consent the install was recorded under: a fact of the install that later
            # changes do not rewrite, so a file says the same whenever it is written.
            asked = [i for i, row in enumerate(chunk) if row.app_id in with_consent]
            found = consents_at([
                Subject(uuid.UUID(chunk[i].app_id), uuid.UUID(chunk[i].id), chunk[i].device_id,
                        _moment(chunk[i].installed_at)) for i in asked])
            for i, consent in zip(asked, found, strict=True):
                consents[i] = consent
        yield [_install_columns(row, consent)
               for row, consent in zip(chunk, consents, strict=True)]


def blocked_installs(window: Window, size: int) -> Iterator[list[tuple]]:
    """The installs fraud protection blocked (answered as organic, counted apart: `counted`
    false), with their reasons: Protect360's "blocked installs" report. They are in `installs`
    as well."""
    return installs(window, size, fraud_status="blocked")


def _moment(micros: int) -> datetime:
    return layout.EPOCH + timedelta(microseconds=micros)


class _UsdRates:
    """US-dollar rates, read again only when a run meets a currency it has not seen."""

    def __init__(self, through: datetime):
        self._through = through.astimezone(UTC).date()
        self._book: RateBook | None = None
        self._currencies: set[str] = set()

    def convert(self, amount: Decimal, currency: str, day: date) -> Decimal | None:
        if currency not in self._currencies:
            self._currencies.add(currency)
            self._book = analytics_queries.rate_book(
                target=PIVOT, currencies=self._currencies, through=self._through)
        usd = self._book.convert(amount, currency, day)
        return None if usd is None else usd.quantize(_SIX_PLACES)


def inapps(window: Window, size: int) -> Iterator[list[tuple]]:
    rates = _UsdRates(window.through.taken_at)
    rows = raw_rows.events(app_ids=window.app_ids, after=window.after, through=window.through)
    for chunk in _chunks(rows, size):
        yield [_inapp_columns(row, rates) for row in chunk]


def _inapp_columns(row: raw_rows.EventRow, rates: _UsdRates) -> tuple:
    """INAPPS' columns of an event: its revenue in US dollars, its fraud status and count."""
    usd = None
    if row.revenue_amount is not None and row.revenue_currency:
        # At the rate of the day the event happened, as the revenue reports convert.
        day = _EPOCH_DAY + timedelta(days=row.occurred_at // _DAY_MICROS)
        usd = rates.convert(row.revenue_amount, row.revenue_currency, day)
    status = counting.event_status(is_blocked=row.is_blocked,
                                   install_status=row.install_fraud_status)
    return (row.app_id, row.id, row.event_id, row.event_name, row.occurred_at, row.received_at,
            row.properties, row.revenue_amount, row.revenue_currency, usd, row.session_id,
            row.device_id, row.install_id, row.install_installed_at, row.install_platform,
            row.install_match_type, row.install_media_source, row.install_campaign_id,
            row.install_adset, row.install_ad, row.is_blocked, status,
            row.install_fraud_reasons, counting.counted(status), VERSION)


def clicks(window: Window, size: int) -> Iterator[list[tuple]]:
    rows = raw_rows.clicks(app_ids=window.app_ids, after=window.after, through=window.through)
    for chunk in _chunks(rows, size):
        yield [(row.app_id, row.id, row.clicked_at, row.media_source, row.campaign_id,
                row.adset, row.ad, row.advertising_id, row.ip, row.user_agent, row.os_family,
                row.os_version, row.device_model, row.link_id, VERSION) for row in chunk]


def reattributions(window: Window, size: int) -> Iterator[list[tuple]]:
    """Re-engagements, then Apple Ads corrections (each in its own time order: an hour may
    then get a part of each)."""
    since, until = window.stamps
    rows = raw_rows.reengagements(app_ids=window.app_ids, since=since, until=until)
    for chunk in _chunks(rows, size):
        yield [(row.app_id, row.id, "re-engagement", row.install_id, row.reengaged_at, "click",
                row.clicked_at, row.click_id, row.media_source, row.campaign_id, None, None,
                VERSION) for row in chunk]
    moved = apple_ads_selectors.reattributions_for_export(app_ids=window.app_ids, since=since,
                                                          until=until)
    for chunk in _chunks(moved, size):
        yield [(*row[:2], "apple_ads", *row[2:4], "click", row[4], None, *row[5:], VERSION)
               for row in chunk]


def deliveries(window: Window, size: int) -> Iterator[list[tuple]]:
    since, until = window.stamps
    rows = delivery_selectors.attempts_finished(app_ids=window.app_ids, since=since,
                                                until=until)
    for chunk in _chunks(rows, size):
        yield [(*row, VERSION) for row in chunk]


def skan_postbacks(window: Window, size: int) -> Iterator[list[tuple]]:
    since, until = window.stamps
    rows = skan_selectors.postbacks_for_export(app_ids=window.app_ids, since=since,
                                               until=until)
    for chunk in _chunks(rows, size):
        yield [(*row, VERSION) for row in chunk]


def cost(window: Window, size: int) -> Iterator[list[tuple]]:
    """Pulled and uploaded spend by the time it was stored, with its dollar amount."""
    since, until = window.stamps
    rates = _UsdRates(window.through.taken_at)
    rows = analytics_costs.rows_for_export(app_ids=window.app_ids, since=since, until=until)
    for chunk in _chunks(rows, size):
        yield [_cost_columns(row, rates) for row in chunk]


def _cost_columns(row: tuple, rates: _UsdRates) -> tuple:
    (app_id, source, connection, media_source, account, day, campaign_id, campaign_name,
     adset_id, adset_name, ad_id, ad_name, currency, spend, impressions, clicks,
     recorded_at) = row
    return (app_id, source, connection, media_source, account, day.isoformat(), campaign_id,
            campaign_name, adset_id, adset_name, ad_id, ad_name, currency,
            spend.quantize(_SIX_PLACES), rates.convert(spend, currency, day), impressions,
            clicks, recorded_at, VERSION)


# Each topic's chunks of rows in its columns, and the column whose UTC hour places a row.
READERS: dict[str, Callable[[Window, int], Iterator[list[tuple]]]] = {
    "installs": installs, "inapps": inapps, "clicks": clicks,
    "reattributions": reattributions, "deliveries": deliveries,
    "skan_postbacks": skan_postbacks, "blocked_installs": blocked_installs, "cost": cost,
}
STAMPS = {"installs": "install_time", "blocked_installs": "install_time",
          "inapps": "event_received_time", "clicks": "click_time",
          "reattributions": "event_time", "deliveries": "finished_time",
          "skan_postbacks": "received_time", "cost": "recorded_time"}


def stamp_index(name: str) -> int:
    return columns.names(name).index(STAMPS[name])
