"""What every analytics read shares, for the API's endpoints and the console's report pages
alike (spec: Analytics endpoints; docs/console.md, "Report pages"): the rollups refreshed first
where no beat runs, the app's report currency, and the sources and campaigns tables under a
multi-touch model.

Under last-touch the tables are the sources and campaigns reports themselves. Under another
model a paid row's installs and revenue are its credited shares (queries.attribution), summed
per media source for the sources table; clicks and cost do not depend on a model and stay, and
so do the organic and no-install rows (no touchpoint, nothing to share). CPI, ROAS and the
conversion rate follow from the credited figures by the same properties as under last-touch.

A report reads `rollups.data_through` before its figures. Rollup rows and the watermark commit
together, and whatever commits (or a replica replays) between the two reads can only add to
the figures: they then hold at least what `data_through` claims, on the primary as on a
replica (docs/replica.md, "Lag").
"""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal

from django.conf import settings

from analytics import queries, rollups
from analytics.models import SourceType
from analytics.money import Money
from analytics.queries import Performance, Period
from analytics.touch_credit import DEFAULT_MODEL
from attribution_site import replica

ORDER = {SourceType.PAID: 0, SourceType.ORGANIC: 1, SourceType.NO_INSTALL: 2}


def period_for_read(*, app_id: uuid.UUID, start: date, end: date,
                    reads_rollups: bool = True) -> tuple[Period, str]:
    """The period to query and the app's report currency, after bringing the rollups up to
    date where no beat does it (the embedded default): a new install shows on the next read."""
    if settings.ANALYTICS_REFRESH_ON_READ and reads_rollups:
        with replica.primary_reads():  # a writer: it reads what it writes, on the primary
            rollups.refresh_on_read()
    return (Period(app_id=app_id, start=start, end=end),
            queries.report_currency(app_id=app_id))


def performance(*, period: Period, currency: str, by_campaign: bool,
                model: str = DEFAULT_MODEL) -> list[Performance]:
    """The sources (or campaigns) table with paid installs and revenue credited by `model`."""
    rows = (queries.campaigns if by_campaign else queries.sources)(period=period,
                                                                    currency=currency)
    if model == DEFAULT_MODEL:
        return rows
    paid: dict[tuple, Performance] = {}
    for row in rows:
        if row.source_type == SourceType.PAID:
            row.installs, row.revenue = Decimal(0), Money()
            paid[_key(row.media_source, row.campaign_id, by_campaign)] = row
    for credited in queries.attribution(period=period, currency=currency, model=model).rows:
        key = _key(credited.media_source, credited.campaign_id, by_campaign)
        if key not in paid:
            paid[key] = Performance(media_source=credited.media_source,
                                    source_type=SourceType.PAID,
                                    campaign_id=credited.campaign_id if by_campaign else None,
                                    installs=Decimal(0))
            rows.append(paid[key])
        paid[key].installs += credited.credited_installs
        paid[key].revenue.merge(credited.credited_revenue)
    if by_campaign:
        queries.with_campaign_names(rows, app_id=period.app_id)
    return sorted(rows, key=lambda r: (ORDER[r.source_type], -r.installs, r.media_source or "",
                                       r.campaign_id or ""))


def _key(media_source: str | None, campaign_id: str | None, by_campaign: bool) -> tuple:
    return (media_source, campaign_id) if by_campaign else (media_source,)
