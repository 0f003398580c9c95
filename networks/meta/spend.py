"""Meta's ad spend (docs/networks.md, "Ad spend"): the Marketing API's insights of an ad account,
daily at ad level. Pure: no ORM, no settings, no clock; the calls go through the `call` handed in.

`GET {origin}/v21.0/{ad_account_id}/insights` with `level=ad`, `time_increment=1`,
`time_range={"since","until"}` and the fields below answers `{"data": [...], "paging": {...}}`;
every number arrives as a string. Pages follow `paging.next`, a full URL that carries the access
token in its query: it is called, never logged or stored (the token is one of the call's
secrets, masked wherever the call could be quoted). An error is `{"error": {"message", "code",
...}}` with a 4xx; codes 4, 17, 32, 613 and 80000-80014 are Meta's rate limits.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from urllib.parse import urlencode, urlsplit

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
    retry_after_seconds,
    unusable,
)

NETWORK = "Meta"
VERSION = "v21.0"
FIELDS = ("campaign_id,campaign_name,adset_id,adset_name,ad_id,ad_name,spend,impressions,"
          "clicks,account_currency,date_start")
PAGE_SIZE = 500
RATE_LIMIT_CODES = frozenset({4, 17, 32, 613}) | frozenset(range(80000, 80015))
MAX_PAGES = 10_000  # a paging loop that never ends is a bug of someone's: stop


@dataclass(frozen=True)
class Connection:
    ad_account_id: str  # act_123
    access_token: str


def first_call(connection: Connection, *, origin: str, since: date, until: date) -> Call:
    query = urlencode({
        "level": "ad", "time_increment": "1",
        "time_range": json.dumps({"since": since.isoformat(), "until": until.isoformat()},
                                 separators=(",", ":")),
        "fields": FIELDS, "limit": str(PAGE_SIZE), "access_token": connection.access_token})
    return Call("GET", f"{origin}/{VERSION}/{connection.ad_account_id}/insights?{query}",
                secrets=(connection.access_token,))


def next_call(page: dict, connection: Connection, *, origin: str) -> Call | None:
    """The next page's call, or None. Only a URL on the origin the first page came from is
    followed: anything else would carry the token elsewhere."""
    url = (page.get("paging") or {}).get("next")
    if not url:
        return None
    if not isinstance(url, str) or _origin(url) != _origin(origin):
        raise PullError(Failure.REFUSED, "Meta's next page is on another host; not followed.")
    return Call("GET", url, secrets=(connection.access_token,))


def page_rows(page: dict) -> Iterator[SpendRow]:
    data = page.get("data")
    if not isinstance(data, list):
        raise PullError(Failure.UNAVAILABLE, "Meta answered without a data list.")
    for item in data:
        yield SpendRow(
            day=day_of(item.get("date_start"), network=NETWORK),
            campaign_id=str(item.get("campaign_id") or ""),
            campaign_name=str(item.get("campaign_name") or ""),
            adset_id=str(item.get("adset_id") or ""), adset_name=str(item.get("adset_name") or ""),
            ad_id=str(item.get("ad_id") or ""), ad_name=str(item.get("ad_name") or ""),
            currency=str(item.get("account_currency") or "").upper(),
            spend=decimal_of(item.get("spend"), what="spend", network=NETWORK),
            impressions=count_of(item.get("impressions"), what="impressions", network=NETWORK),
            clicks=count_of(item.get("clicks"), what="clicks", network=NETWORK))


def judge(answer: Answer) -> dict:
    """The page, or PullError in Meta's words."""
    if answer.error is None and answer.status_code == 200:
        page = json_of(answer, network=NETWORK)
        if isinstance(page, dict) and "error" not in page:
            return page
    body = _body(answer)
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        raise unusable(answer, network=NETWORK)
    message = clip(str(error.get("message") or "no message"))
    code = error.get("code")
    if answer.status_code == 429:
        raise unusable(answer, network=NETWORK, message=message)
    if code in RATE_LIMIT_CODES:
        raise PullError(Failure.RATE_LIMITED, f"Meta's rate limit (code {code}): {message}",
                        retry_after_seconds(answer.retry_after))
    if answer.status_code and answer.status_code >= 500:
        raise PullError(Failure.UNAVAILABLE, f"Meta answered {answer.status_code}: {message}")
    raise PullError(Failure.REFUSED, f"Meta refused the request (code {code}): {message}")


def rows(connection: Connection, *, origin: str, since: date, until: date,
         call: CallFn) -> Iterator[SpendRow]:
    """Every row of the window, page by page (a page is read, yielded and dropped)."""
    request: Call | None = first_call(connection, origin=origin, since=since, until=until)
    for _ in range(MAX_PAGES):
        if request is None:
            return
        page = judge(call(request))
        yield from page_rows(page)
        request = next_call(page, connection, origin=origin)
    raise PullError(Failure.REFUSED, f"Meta sent more than {MAX_PAGES} pages; stopped.")


def _body(answer: Answer):
    try:
        return json.loads(answer.body) if answer.body else None
    except ValueError:
        return None


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc
