"""Google Ads' spend (docs/networks.md, "Ad spend"): the Google Ads API's `searchStream`, daily
at ad group level. Pure: no ORM, no settings, no clock; the calls go through the `call` handed in.

First an access token from Google's OAuth token endpoint (the refresh-token grant: `client_id`,
`client_secret`, `refresh_token`, form-encoded), then, for each day of the window, `POST
{origin}/v22/customers/{customer_id}/googleAds:searchStream` with `developer-token`,
`login-customer-id` when set and a GAQL query over `ad_group`. The answer is a JSON array of
batches, each with `results`; fields arrive in camelCase, 64-bit numbers as strings, cost in
micros of the account's currency. One call per day keeps an answer's size to one day of the
account, whatever the window. An error is `{"error": {"code", "message", "status",
"details"}}` (inside an array when it comes from the stream); `details` hold the
GoogleAdsFailure with the words that say what to fix.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
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
    days_of,
    decimal_of,
    retry_after_seconds,
    unusable,
)

NETWORK = "Google Ads"
VERSION = "v22"
MICROS = Decimal(1_000_000)
QUERY = ("SELECT campaign.id, campaign.name, ad_group.id, ad_group.name, metrics.cost_micros, "
         "metrics.impressions, metrics.clicks, segments.date, customer.currency_code "
         "FROM ad_group WHERE segments.date BETWEEN '{since}' AND '{until}'")


@dataclass(frozen=True)
class Connection:
    customer_id: str  # digits only
    login_customer_id: str  # digits only, or "" (no manager account)
    client_id: str
    client_secret: str
    refresh_token: str
    developer_token: str


def token_call(connection: Connection, *, token_url: str) -> Call:
    body = urlencode({"grant_type": "refresh_token", "client_id": connection.client_id,
                      "client_secret": connection.client_secret,
                      "refresh_token": connection.refresh_token}).encode()
    return Call("POST", token_url, {"Content-Type": "application/x-www-form-urlencoded",
                                    "Accept": "application/json"}, body,
                secrets=(connection.client_secret, connection.refresh_token))


def access_token(answer: Answer) -> str:
    """The token from the grant's answer, or PullError in Google's words ("invalid_grant:
    Token has been expired or revoked.")."""
    body = _body(answer)
    if answer.error is None and answer.status_code == 200 and isinstance(body, dict) \
            and isinstance(body.get("access_token"), str):
        return body["access_token"]
    if isinstance(body, dict) and body.get("error") and answer.status_code != 429 and \
            (answer.status_code or 0) < 500:
        words = clip(f"{body.get('error')}: {body.get('error_description') or ''}".strip(": "))
        raise PullError(Failure.REFUSED, f"Google's OAuth token endpoint refused the refresh "
                                         f"token ({words}).")
    raise unusable(answer, network="Google's OAuth token endpoint")


def stream_call(connection: Connection, token: str, *, origin: str, day: date) -> Call:
    headers = {"Authorization": f"Bearer {token}",
               "developer-token": connection.developer_token,
               "Content-Type": "application/json", "Accept": "application/json"}
    if connection.login_customer_id:
        headers["login-customer-id"] = connection.login_customer_id
    query = QUERY.format(since=day.isoformat(), until=day.isoformat())
    return Call("POST", f"{origin}/{VERSION}/customers/{connection.customer_id}/"
                        "googleAds:searchStream",
                headers, json.dumps({"query": query}).encode(),
                secrets=(token, connection.developer_token))


def judge(answer: Answer) -> list:
    """The batches, or PullError in Google's words."""
    body = _body(answer)
    if answer.error is None and answer.status_code == 200 and isinstance(body, list) \
            and not any(isinstance(batch, dict) and "error" in batch for batch in body):
        return body
    error = _error_of(body)
    if error is None:
        raise unusable(answer, network=NETWORK)
    message = _message(error)
    status = str(error.get("status") or "")
    if answer.status_code == 429 or status == "RESOURCE_EXHAUSTED":
        raise PullError(Failure.RATE_LIMITED, f"Google Ads' rate limit: {message}",
                        retry_after_seconds(answer.retry_after))
    if (answer.status_code or 0) >= 500 or status in ("UNAVAILABLE", "INTERNAL",
                                                      "DEADLINE_EXCEEDED"):
        raise PullError(Failure.UNAVAILABLE, f"Google Ads answered {answer.status_code}: "
                                             f"{message}")
    raise PullError(Failure.REFUSED, f"Google Ads refused the request ({status or 'error'}): "
                                     f"{message}")


def batch_rows(batches: list) -> Iterator[SpendRow]:
    for batch in batches:
        for item in (batch or {}).get("results") or ():
            campaign = item.get("campaign") or {}
            group = item.get("adGroup") or {}
            metrics = item.get("metrics") or {}
            micros = decimal_of(metrics.get("costMicros"), what="cost_micros", network=NETWORK)
            yield SpendRow(
                day=day_of((item.get("segments") or {}).get("date"), network=NETWORK),
                campaign_id=str(campaign.get("id") or ""),
                campaign_name=str(campaign.get("name") or ""),
                adset_id=str(group.get("id") or ""), adset_name=str(group.get("name") or ""),
                ad_id="", ad_name="",
                currency=str((item.get("customer") or {}).get("currencyCode") or "").upper(),
                spend=micros / MICROS,
                impressions=count_of(metrics.get("impressions"), what="impressions",
                                     network=NETWORK),
                clicks=count_of(metrics.get("clicks"), what="clicks", network=NETWORK))


def rows(connection: Connection, *, origin: str, token_url: str, since: date, until: date,
         call: CallFn) -> Iterator[SpendRow]:
    token = access_token(call(token_call(connection, token_url=token_url)))
    for day in days_of(since, until):
        yield from batch_rows(judge(call(stream_call(connection, token, origin=origin,
                                                     day=day))))


def _body(answer: Answer):
    try:
        return json.loads(answer.body) if answer.body else None
    except ValueError:
        return None


def _error_of(body) -> dict | None:
    if isinstance(body, list):
        body = next((batch for batch in body if isinstance(batch, dict) and "error" in batch),
                    None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return body["error"]
    return None


def _message(error: dict) -> str:
    """Google's GoogleAdsFailure words when the details carry them, else the message."""
    said = []
    for detail in error.get("details") or ():
        for failure in (detail or {}).get("errors") or ():
            if failure.get("message"):
                said.append(str(failure["message"]))
    return clip("; ".join(said) or str(error.get("message") or "no message"))
