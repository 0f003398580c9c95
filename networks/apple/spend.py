"""Apple Ads' spend (docs/networks.md, "Ad spend"): the Apple Ads Platform API v1 reports,
campaign and ad group, daily in the account's own time zone. No ORM, no settings, no clock (the
time is handed in); the calls go through the `call` handed in. (Campaign Management API v5 is
retired on 26 January 2027 and not used.)

Apple's client-credentials flow: the client secret is a JWT signed ES256 with the advertiser's
private key (header `kid` = key id; claims `sub` = client id, `iss` = team id, `aud` =
https://appleid.apple.com, `iat`, `exp`), exchanged at Apple's OAuth token endpoint
(`grant_type=client_credentials`, `scope=searchadsorg`) for a bearer token. Reports are `POST
{origin}/v1/reports/apps/campaigns/query` and `.../adgroups/query` with `X-AP-Context:
adAccountId=...`, a `timeRange` (`ORTZ`, `DAILY`) and `pagination` (`offset`, `pageSize`);
the answer's `result.rows` each carry `metadata` (ids, names) and `granularMetrics` (one per
day: `date`, `localSpend` {amount, currency}, `impressions`, `taps`). Every ad group report
needs a campaign filter, so the campaigns come first and their ad groups one campaign at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from urllib.parse import urlencode

import jwt

from networks.spend.core import (
    Answer,
    Call,
    CallFn,
    CampaignFilter,
    Failure,
    PullError,
    SpendRow,
    clip,
    count_of,
    day_of,
    decimal_of,
    unusable,
)

NETWORK = "Apple Ads"
AUDIENCE = "https://appleid.apple.com"
SCOPE = "searchadsorg"
CLIENT_SECRET_LIFETIME = timedelta(hours=1)
PAGE_SIZE = 1000
FIELDS = ["localSpend", "impressions", "taps"]
MAX_PAGES = 1000


@dataclass(frozen=True)
class Connection:
    org_id: str  # the ad account id Apple Ads shows (X-AP-Context: adAccountId=...)
    client_id: str
    team_id: str
    key_id: str
    private_key: str  # PEM of the EC P-256 key whose public half was uploaded to Apple Ads


def client_secret(connection: Connection, *, now: datetime) -> str:
    """The ES256-signed JWT Apple takes as the client secret."""
    issued = int(now.timestamp())
    try:
        return jwt.encode(
            {"sub": connection.client_id, "iss": connection.team_id, "aud": AUDIENCE,
             "iat": issued, "exp": issued + int(CLIENT_SECRET_LIFETIME.total_seconds())},
            connection.private_key, algorithm="ES256", headers={"kid": connection.key_id})
    except (ValueError, TypeError, jwt.PyJWTError):
        # The key's own text never goes into the message.
        raise PullError(Failure.REFUSED, "The Apple Ads private key cannot sign (it must be "
                                         "the PEM of an EC P-256 private key).") from None


def token_call(connection: Connection, *, token_url: str, now: datetime) -> Call:
    secret = client_secret(connection, now=now)
    body = urlencode({"grant_type": "client_credentials", "client_id": connection.client_id,
                      "client_secret": secret, "scope": SCOPE}).encode()
    return Call("POST", token_url, {"Content-Type": "application/x-www-form-urlencoded",
                                    "Accept": "application/json"}, body,
                secrets=(secret, connection.private_key))


def access_token(answer: Answer) -> str:
    body = _body(answer)
    if answer.error is None and answer.status_code == 200 and isinstance(body, dict) \
            and isinstance(body.get("access_token"), str):
        return body["access_token"]
    if isinstance(body, dict) and body.get("error") and answer.status_code != 429 and \
            (answer.status_code or 0) < 500:
        words = clip(f"{body.get('error')}: {body.get('error_description') or ''}".strip(": "))
        raise PullError(Failure.REFUSED, f"Apple's OAuth token endpoint refused the client "
                                         f"credentials ({words}).")
    raise unusable(answer, network="Apple's OAuth token endpoint")


def report_call(connection: Connection, token: str, *, origin: str, level: str, since: date,
                until: date, offset: int, campaign_id: str | None = None) -> Call:
    body: dict = {
        "timeRange": {"start": since.isoformat(), "end": until.isoformat(),
                      "timeZone": "ORTZ", "granularity": "DAILY"},
        "fields": FIELDS, "pagination": {"offset": offset, "pageSize": PAGE_SIZE}}
    if campaign_id is not None:
        body["filters"] = [{"field": "campaignId", "operator": "EQUALS",
                            "value": [campaign_id]}]
    return Call("POST", f"{origin}/v1/reports/apps/{level}/query",
                {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                 "Accept": "application/json",
                 "X-AP-Context": f"adAccountId={connection.org_id}"},
                json.dumps(body).encode(), secrets=(token,))


def judge(answer: Answer) -> list:
    """The report's rows, or PullError in Apple's words (an `error` in the answer counts even
    beside a 200)."""
    body = _body(answer)
    error = body.get("error") if isinstance(body, dict) else None
    if answer.error is None and answer.status_code == 200 and not error:
        rows = ((body or {}).get("result") or {}).get("rows") if isinstance(body, dict) else None
        if not isinstance(rows, list):
            raise PullError(Failure.UNAVAILABLE, "Apple Ads answered without result rows.")
        return rows
    if not error:
        raise unusable(answer, network=NETWORK)
    words = _words(error)
    if answer.status_code == 429:
        raise unusable(answer, network=NETWORK, message=words)
    if (answer.status_code or 0) >= 500:
        raise PullError(Failure.UNAVAILABLE, f"Apple Ads answered {answer.status_code}: "
                                             f"{words}")
    raise PullError(Failure.REFUSED, f"Apple Ads refused the request: {words}")


def report_rows(rows: list, *, campaign_names: dict[str, str]) -> Iterator[SpendRow]:
    """Ad group rows: one SpendRow per day of each ad group's granular metrics."""
    for row in rows:
        meta = row.get("metadata") or {}
        campaign_id = str(meta.get("campaignId") or "")
        for day in row.get("granularMetrics") or ():
            spend = day.get("localSpend") or {}
            yield SpendRow(
                day=day_of(day.get("date"), network=NETWORK), campaign_id=campaign_id,
                campaign_name=campaign_names.get(campaign_id, ""),
                adset_id=str(meta.get("id") or ""), adset_name=str(meta.get("name") or ""),
                ad_id="", ad_name="", currency=str(spend.get("currency") or "").upper(),
                spend=decimal_of(spend.get("amount"), what="localSpend", network=NETWORK),
                impressions=count_of(day.get("impressions"), what="impressions",
                                     network=NETWORK),
                clicks=count_of(day.get("taps"), what="taps", network=NETWORK))


def rows(connection: Connection, *, origin: str, token_url: str, since: date, until: date,
         now: datetime, call: CallFn, keep: CampaignFilter = CampaignFilter()
         ) -> Iterator[SpendRow]:
    token = access_token(call(token_call(connection, token_url=token_url, now=now)))

    def paged(level: str, campaign_id: str | None = None) -> Iterator[dict]:
        for number in range(MAX_PAGES):
            page = judge(call(report_call(connection, token, origin=origin, level=level,
                                          since=since, until=until,
                                          offset=number * PAGE_SIZE, campaign_id=campaign_id)))
            yield from page
            if len(page) < PAGE_SIZE:
                return
        raise PullError(Failure.REFUSED, f"Apple Ads sent more than {MAX_PAGES} pages; "
                                         "stopped.")

    campaigns: dict[str, str] = {}
    for row in paged("campaigns"):
        meta = row.get("metadata") or {}
        campaign_id, name = str(meta.get("id") or ""), str(meta.get("name") or "")
        if campaign_id and (not keep.campaign_ids or campaign_id in keep.campaign_ids) and (
                not keep.name_contains or keep.name_contains.casefold() in name.casefold()):
            campaigns[campaign_id] = name
    for campaign_id in campaigns:
        yield from report_rows(list(paged("adgroups", campaign_id)),
                               campaign_names=campaigns)


def _body(answer: Answer):
    try:
        return json.loads(answer.body) if answer.body else None
    except ValueError:
        return None


def _words(error) -> str:
    if isinstance(error, dict):
        errors = error.get("errors")
        if isinstance(errors, list) and errors:
            return clip("; ".join(str((e or {}).get("message") or (e or {}).get("messageCode")
                                      or "") for e in errors))
        return clip(str(error.get("message") or error))
    return clip(str(error))
