"""Reads of conversion-value schemas, the value a device should set now, and the verified
postbacks the SKAdNetwork report decodes (docs/apple.md, "The SKAdNetwork report").

Postbacks belong to the `skan` app: they are read through `skan.selectors.postbacks_received`,
one bounded query that returns plain values, never its queryset.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from analytics import queries as analytics_queries
from analytics.cost_report import SkanCampaignFigure
from conversion import report, values
from conversion.models import ConversionSchema
from conversion.report import ArrivedPostback, SchemaVersion, SkanRow
from skan.selectors import campaign_of, media_source_for, postbacks_received


def _version(row: ConversionSchema) -> SchemaVersion:
    # Stored documents were checked when written; parsing them again gives the typed schema.
    schema = values.schema_parse(row.document, currencies=frozenset({row.currency}))
    return SchemaVersion(version=row.version, created_at=row.created_at, schema=schema)


def schema_versions(*, app_id: uuid.UUID) -> list[SchemaVersion]:
    """Every version of the app's schema, oldest first."""
    return [_version(row) for row in
            ConversionSchema.objects.filter(app_id=app_id).order_by("version")]


def schema_version(*, app_id: uuid.UUID, version: int) -> SchemaVersion | None:
    row = ConversionSchema.objects.filter(app_id=app_id, version=version).first()
    return _version(row) if row is not None else None


def active_schema(*, app_id: uuid.UUID) -> SchemaVersion | None:
    """The newest version: the one devices apply and new postbacks decode through."""
    row = ConversionSchema.objects.filter(app_id=app_id).order_by("-version").first()
    return _version(row) if row is not None else None


# --- The value to set now ---------------------------------------------------------------------

@dataclass(frozen=True)
class DeviceEvent:
    event_name: str
    revenue: Decimal | None
    currency: str | None
    at: datetime


@dataclass(frozen=True)
class ValueAnswer:
    value: values.Value
    schema_version: int
    events_counted: int
    warnings: list[str]


class WindowsClosed(Exception):  # noqa: N818 - reads as the outcome
    """Every conversion window of the install has closed: there is no value to set."""


def conversion_value_for(*, active: SchemaVersion, window: int | None,
                         install_time: datetime | None, events: list[DeviceEvent],
                         now: datetime) -> ValueAnswer:
    """The value the device's events earn in `window` (or, without one, in the window open now
    for `install_time`). With an install time only the window's own events count. Revenue in
    another currency converts at its day's rate; revenue without a rate is left out, with a
    warning, rather than refusing the whole answer: the device still gets the events' value."""
    if window is None:
        window = values.window_at(install_time=install_time, at=now)
        if window is None:
            raise WindowsClosed
    if install_time is not None:
        start, end = values.window_span(install_time=install_time, window=window)
        events = [event for event in events if start <= event.at < end]
    schema = active.schema
    foreign = {e.currency for e in events if e.revenue is not None
               and e.currency not in (None, schema.currency)}
    book = (analytics_queries.rate_book(target=schema.currency, currencies=foreign,
                                        through=max(e.at for e in events).date())
            if foreign else None)
    warnings: list[str] = []
    activity = []
    for event in events:
        revenue = event.revenue
        if revenue is not None and event.currency not in (None, schema.currency):
            revenue = book.convert(revenue, event.currency, event.at.date())
            if revenue is None:
                warnings.append(f"No exchange rate from {event.currency} to "
                                f"{schema.currency}: that revenue was left out.")
        activity.append(values.Activity(event_name=event.event_name, revenue=revenue,
                                        at=event.at))
    value = values.conversion_value(schema=schema, window=window, events=activity)
    return ValueAnswer(value=value, schema_version=active.version,
                       events_counted=len(activity), warnings=sorted(set(warnings)))


# --- Postbacks for the report -----------------------------------------------------------------

def postbacks_arrived(*, app_id: uuid.UUID, start: date, end: date) -> list[ArrivedPostback]:
    """The app's verified postbacks that arrived on the UTC days `start`..`end` (both included),
    as plain values."""
    since = datetime.combine(start, time.min, tzinfo=UTC)
    until = datetime.combine(end + timedelta(days=1), time.min, tzinfo=UTC)
    return [ArrivedPostback(received_at=row.received_at, window=row.postback_sequence_index,
                            ad_network_id=row.ad_network_id.lower(),
                            source_identifier=row.source_identifier, fine=row.fine_value,
                            coarse=row.coarse_value or None, did_win=row.did_win,
                            redownload=row.redownload,
                            reengagement=row.conversion_type == "re-engagement")
            for row in postbacks_received(app_id=app_id, since=since, until=until)]


def media_source_names(*, app_id: uuid.UUID, ad_network_ids: set[str]) -> dict[str, str]:
    """The media source name reports show for each ad network id (skan's mapping)."""
    return {network: media_source_for(app_id=app_id, ad_network_id=network)
            for network in ad_network_ids}


def skan_rows(*, app_id: uuid.UUID, start: date, end: date, currency: str) -> list[SkanRow]:
    """The SKAdNetwork report of the postbacks that arrived on `start`..`end`, estimated revenue
    in `currency`."""
    postbacks = postbacks_arrived(app_id=app_id, start=start, end=end)
    versions = schema_versions(app_id=app_id)
    names = media_source_names(app_id=app_id,
                               ad_network_ids={p.ad_network_id for p in postbacks})
    book = analytics_queries.rate_book(
        target=currency, currencies={v.schema.currency for v in versions}, through=end)
    return report.skan_report(postbacks=postbacks, versions=versions, names=names, book=book)


def skan_campaign_figures(*, app_id: uuid.UUID, start: date, end: date, currency: str
                          ) -> list[SkanCampaignFigure]:
    """The SKAN report's installs and estimated revenue per network campaign, through the
    app's campaign mappings (skan.selectors.campaign_of): the cost report's SKAN CPI and ROAS.
    A source identifier mapped to nothing comes with campaign None."""
    rows = skan_rows(app_id=app_id, start=start, end=end, currency=currency)
    mapped = campaign_of(app_id=app_id)
    sums = report.skan_summed(rows, lambda row: (
        row.media_source, mapped.get((row.media_source, row.source_identifier))))
    return [SkanCampaignFigure(media_source=media_source, campaign_id=campaign_id,
                               installs=counts.installs, revenue=counts.estimated_revenue)
            for (media_source, campaign_id), counts in sums.items()]
