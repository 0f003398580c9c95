"""TikTok's ad spend (docs/networks.md, "Ad spend"): the Business API's synchronous report,
daily at ad level. Pure: no ORM, no settings, no clock; the calls go through the `call` handed in.

`GET {origin}/open_api/v1.3/report/integrated/get/` with the header `Access-Token`,
`report_type=BASIC`, `data_level=AUCTION_AD`, `dimensions=["ad_id","stat_time_day"]` and the
metrics below, page by page (`page`, `page_size`; the answer's `data.page_info.total_page`
says how many). TikTok answers HTTP 200 even to an error: `code` other than 0 is one, with
`message` in words (40100: too many requests; 5xxxx: its own trouble).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from urllib.parse import urlencode

from networks.spend.core import (
    Answer,
    Call,
    CallFn,
    Failure,
    PullError,
    SpendRow,
    clip,
    count_of,
    day_of,
    decimal_of,
    json_of,
    unusable,
)

NETWORK = "TikTok"
PATH = "/open_api/v1.3/report/integrated/get/"
DIMENSIONS = ["ad_id", "stat_time_day"]
METRICS = ["spend", "impressions", "clicks", "campaign_id", "campaign_name", "adgroup_id",
           "adgroup_name", "ad_name", "currency"]
PAGE_SIZE = 1000
RATE_LIMITED_CODES = frozenset({40100})
MAX_PAGES = 10_000


@dataclass(frozen=True)
class Connection:
    advertiser_id: str
    access_token: str


def page_call(connection: Connection, *, origin: str, since: date, until: date,
              page: int) -> Call:
    query = urlencode({
        "advertiser_id": connection.advertiser_id, "report_type": "BASIC",
        "data_level": "AUCTION_AD", "dimensions": json.dumps(DIMENSIONS),
        "metrics": json.dumps(METRICS), "start_date": since.isoformat(),
        "end_date": until.isoformat(), "page": str(page), "page_size": str(PAGE_SIZE)})
    return Call("GET", f"{origin}{PATH}?{query}", {"Access-Token": connection.access_token},
                secrets=(connection.access_token,))


def judge(answer: Answer) -> dict:
    """The answer's `data`, or PullError: an HTTP error, or `code` != 0 inside a 200."""
    if answer.error is not None or answer.status_code != 200:
        raise unusable(answer, network=NETWORK, message=_message(answer))
    body = json_of(answer, network=NETWORK)
    if not isinstance(body, dict):
        raise PullError(Failure.UNAVAILABLE, "TikTok answered with a body that is not an "
                                             "object.")
    code = body.get("code")
    if code != 0:
        words = clip(str(body.get("message") or "no message"))
        if code in RATE_LIMITED_CODES:
            raise PullError(Failure.RATE_LIMITED, f"TikTok's rate limit (code {code}): {words}")
        if isinstance(code, int) and code >= 50000:
            raise PullError(Failure.UNAVAILABLE, f"TikTok's own error (code {code}): {words}")
        raise PullError(Failure.REFUSED, f"TikTok refused the request (code {code}): {words}")
    data = body.get("data")
    if not isinstance(data, dict) or not isinstance(data.get("list"), list):
        raise PullError(Failure.UNAVAILABLE, "TikTok answered code 0 without a data list.")
    return data


def page_rows(data: dict) -> Iterator[SpendRow]:
    for item in data["list"]:
        dims = item.get("dimensions") or {}
        metrics = item.get("metrics") or {}
        yield SpendRow(
            day=day_of(dims.get("stat_time_day"), network=NETWORK),
            campaign_id=str(metrics.get("campaign_id") or ""),
            campaign_name=str(metrics.get("campaign_name") or ""),
            adset_id=str(metrics.get("adgroup_id") or ""),
            adset_name=str(metrics.get("adgroup_name") or ""),
            ad_id=str(dims.get("ad_id") or ""), ad_name=str(metrics.get("ad_name") or ""),
            currency=str(metrics.get("currency") or "").upper(),
            spend=decimal_of(metrics.get("spend"), what="spend", network=NETWORK),
            impressions=count_of(metrics.get("impressions"), what="impressions",
                                 network=NETWORK),
            clicks=count_of(metrics.get("clicks"), what="clicks", network=NETWORK))


def rows(connection: Connection, *, origin: str, since: date, until: date,
         call: CallFn) -> Iterator[SpendRow]:
    page = 1
    while page <= MAX_PAGES:
        data = judge(call(page_call(connection, origin=origin, since=since, until=until,
                                    page=page)))
        yield from page_rows(data)
        total = (data.get("page_info") or {}).get("total_page") or 1
        if page >= int(total):
            return
        page += 1
    raise PullError(Failure.REFUSED, f"TikTok sent more than {MAX_PAGES} pages; stopped.")


def _message(answer: Answer) -> str | None:
    try:
        body = json.loads(answer.body) if answer.body else None
    except ValueError:
        return None
    return str(body.get("message")) if isinstance(body, dict) and body.get("message") else None
