"""The plain row a network's spend pull hands to analytics (docs/analytics.md, "Ad spend in
reports"): one day of one ad (or ad group, where the network reports no finer) with its spend,
impressions and clicks, in the ad account's currency. Pure: standard library only.

The networks app builds these from each API's answer and passes them, streamed, to
`analytics.costs.cost_rows_replace`; `row_problem` is the check that function applies, so a
parser's test can ask it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from attribution_site.currencies import currency_code

# The media sources attribution writes for these networks: cost joins installs on them.
MEDIA_SOURCES = ("meta", "google", "tiktok", "apple_search_ads")
ID_LENGTH = 255
NAME_LENGTH = 512


@dataclass(frozen=True, slots=True)
class SpendRow:
    """One day of one ad's spend as the network reported it. Ids join; names are labels only.

    `adset_id`/`ad_id` are "" where the network reports at a coarser level (Google's and
    Apple's ad groups have no ad level here). Numbers are already numbers: parsers turn Meta's
    strings and Google's micros into a Decimal in the account currency.
    """

    day: date
    campaign_id: str
    spend: Decimal
    currency: str
    adset_id: str = ""
    ad_id: str = ""
    impressions: int = 0
    clicks: int = 0
    campaign_name: str = ""
    adset_name: str = ""
    ad_name: str = ""

    @property
    def key(self) -> tuple[date, str, str, str]:
        """What one stored row is per connection: a repeat of the key replaces the earlier."""
        return (self.day, self.campaign_id, self.adset_id, self.ad_id)


def row_problem(row: SpendRow) -> str | None:
    """Why the row cannot be stored, in words, or None. Ids and names are not checked beyond
    length: they are the network's own."""
    if not isinstance(row.day, date):
        return "day must be a date"
    if not row.campaign_id:
        return "campaign_id is required"
    for name in ("campaign_id", "adset_id", "ad_id"):
        if len(getattr(row, name)) > ID_LENGTH:
            return f"{name} is longer than {ID_LENGTH} characters"
    if not isinstance(row.spend, Decimal) or not row.spend.is_finite() or row.spend < 0:
        return "spend must be a Decimal of 0 or more"
    if currency_code(row.currency) != row.currency:
        return f"currency {row.currency!r} is not an ISO 4217 code in capitals"
    if row.impressions < 0 or row.clicks < 0:
        return "impressions and clicks must be 0 or more"
    return None
