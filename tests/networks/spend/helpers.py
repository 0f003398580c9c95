"""Stand-ins of the four networks' reporting APIs on loopback HTTPS, speaking their documented
formats (docs/networks.md, "Ad spend"), and what the spend tests share.

Each stand-in holds the spend it serves (`served`: day -> rows) and answers as the network
does: Meta pages linked by `paging.next` (carrying the access token) with numbers as strings;
Google's token grant and searchStream's array of batches with cost in micros; TikTok's pages
with `page_info` and its errors inside a 200; Apple's token grant (the client secret checked as
an ES256 JWT against the public key) and its campaign and ad group reports. `script` holds
answers given first, in order, whatever was asked (a 429 with Retry-After, a 401, an error
inside a 200), so a test says "this fails once, then works".

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.delivery.helpers import (  # noqa: F401 - fixtures shared with delivery's tests
    ca,
    ca_bundle_path,
    private_destinations_allowed,
    ssl_server_context,
    trusted_ca,
)

META_TOKEN = "EAAMetaSecretToken0123456789abcdef"
GOOGLE_CLIENT_SECRET = "GOCSPX-googleSecret0123"
GOOGLE_REFRESH_TOKEN = "1//0gRefreshTokenSecret0123456789"
GOOGLE_ACCESS_TOKEN = "ya29.googleAccessToken0123456789"
DEV_TOKEN = "devTokenSecret_0123"
TIKTOK_TOKEN = "tiktokAccessTokenSecret0123456789"
APPLE_ACCESS_TOKEN = "appleAccessTokenSecret0123456789"
APPLE_KEY = ec.generate_private_key(ec.SECP256R1())
APPLE_PRIVATE_PEM = APPLE_KEY.private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
    serialization.NoEncryption()).decode()
SECRETS = (META_TOKEN, GOOGLE_CLIENT_SECRET, GOOGLE_REFRESH_TOKEN, GOOGLE_ACCESS_TOKEN,
           DEV_TOKEN, TIKTOK_TOKEN, APPLE_ACCESS_TOKEN, APPLE_PRIVATE_PEM.splitlines()[1])


@dataclass
class Served:
    """One row a stand-in serves: day, campaign, ad set, ad, spend (text), counts."""

    day: date
    campaign_id: str
    adset_id: str
    ad_id: str
    spend: str
    impressions: int = 100
    clicks: int = 5
    campaign_name: str = "Campaign"
    currency: str = "USD"


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    query: dict
    headers: dict
    body: bytes


@dataclass
class Scripted:
    status: int
    body: object
    headers: dict = field(default_factory=dict)


class StandIn:
    """A loopback HTTPS server; `answer(seen)` is the network's behaviour."""

    def __init__(self, ca_):
        self.seen: list[Seen] = []
        self.script: list[Scripted] = []
        self.served: list[Served] = []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self):
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                seen = Seen(self.command, parts.path, parse_qs(parts.query),
                            {k.lower(): v for k, v in self.headers.items()},
                            self.rfile.read(length))
                stand_in.seen.append(seen)
                reply = stand_in.script.pop(0) if stand_in.script else stand_in.answer(seen)
                payload = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _handle

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.socket = ssl_server_context(ca_).wrap_socket(self.server.socket,
                                                                 server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def origin(self) -> str:
        return f"https://127.0.0.1:{self.server.server_address[1]}"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def answer(self, seen: Seen) -> Scripted:
        raise NotImplementedError

    def in_window(self, since: date, until: date) -> list[Served]:
        return [row for row in self.served if since <= row.day <= until]


class MetaStandIn(StandIn):
    """`GET /v21.0/{act}/insights`, PAGE rows a page, linked by paging.next."""

    PAGE = 2

    def answer(self, seen):
        if seen.query.get("access_token") != [META_TOKEN]:
            return Scripted(400, {"error": {"message": "Invalid OAuth access token.",
                                            "type": "OAuthException", "code": 190}})
        window = json.loads(seen.query["time_range"][0])
        rows = self.in_window(date.fromisoformat(window["since"]),
                              date.fromisoformat(window["until"]))
        start = int(seen.query.get("after", ["0"])[0])
        page = rows[start:start + self.PAGE]
        body = {"data": [{
            "campaign_id": r.campaign_id, "campaign_name": r.campaign_name,
            "adset_id": r.adset_id, "adset_name": f"Ad set {r.adset_id}", "ad_id": r.ad_id,
            "ad_name": f"Ad {r.ad_id}", "spend": r.spend, "impressions": str(r.impressions),
            "clicks": str(r.clicks), "account_currency": r.currency,
            "date_start": r.day.isoformat(), "date_stop": r.day.isoformat()} for r in page],
            "paging": {"cursors": {"before": "MA", "after": "MQ"}}}
        if start + self.PAGE < len(rows):
            query = {key: values[0] for key, values in seen.query.items()}
            query["after"] = str(start + self.PAGE)
            body["paging"]["next"] = f"{self.origin}{seen.path}?{urlencode(query)}"
        return Scripted(200, body)


class GoogleStandIn(StandIn):
    """`POST /token` (refresh-token grant) and `POST /v22/customers/{id}/googleAds:searchStream`,
    answering batches of BATCH results, cost in micros."""

    BATCH = 2

    def answer(self, seen):
        if seen.path == "/token":
            form = parse_qs(seen.body.decode())
            if form.get("refresh_token") != [GOOGLE_REFRESH_TOKEN] or \
                    form.get("client_secret") != [GOOGLE_CLIENT_SECRET]:
                return Scripted(400, {"error": "invalid_grant",
                                      "error_description": "Token has been expired or revoked."})
            return Scripted(200, {"access_token": GOOGLE_ACCESS_TOKEN, "expires_in": 3599,
                                  "token_type": "Bearer"})
        if seen.headers.get("authorization") != f"Bearer {GOOGLE_ACCESS_TOKEN}":
            return Scripted(401, {"error": {"code": 401, "status": "UNAUTHENTICATED",
                                            "message": "Request is missing required "
                                                       "authentication credential."}})
        query = json.loads(seen.body)["query"]
        since, until = query.split("BETWEEN '")[1].split("' AND '")
        until = until.rstrip("'")
        rows = self.in_window(date.fromisoformat(since), date.fromisoformat(until))
        results = [{
            "customer": {"resourceName": "customers/1234567890", "currencyCode": r.currency},
            "campaign": {"resourceName": f"customers/1234567890/campaigns/{r.campaign_id}",
                         "id": r.campaign_id, "name": r.campaign_name},
            "adGroup": {"resourceName": f"customers/1234567890/adGroups/{r.adset_id}",
                        "id": r.adset_id, "name": f"Ad group {r.adset_id}"},
            "metrics": {"costMicros": str(int(Decimal(r.spend) * 1_000_000)),
                        "impressions": str(r.impressions), "clicks": str(r.clicks)},
            "segments": {"date": r.day.isoformat()}} for r in rows]
        batches = [{"results": results[i:i + self.BATCH],
                    "fieldMask": "campaign.id,campaign.name,adGroup.id,adGroup.name,"
                                 "metrics.costMicros,metrics.impressions,metrics.clicks,"
                                 "segments.date,customer.currencyCode",
                    "requestId": f"req{i}"} for i in range(0, len(results), self.BATCH)]
        return Scripted(200, batches or [{"fieldMask": "campaign.id", "requestId": "empty"}])


class TikTokStandIn(StandIn):
    """`GET /open_api/v1.3/report/integrated/get/`, PAGE rows a page with `page_info`."""

    PAGE = 2

    def answer(self, seen):
        if seen.headers.get("access-token") != TIKTOK_TOKEN:
            return Scripted(200, {"code": 40105, "message": "The access token is invalid.",
                                  "request_id": "r1", "data": {}})
        rows = self.in_window(date.fromisoformat(seen.query["start_date"][0]),
                              date.fromisoformat(seen.query["end_date"][0]))
        page = int(seen.query["page"][0])
        chunk = rows[(page - 1) * self.PAGE: page * self.PAGE]
        total_page = max(1, -(-len(rows) // self.PAGE))
        return Scripted(200, {"code": 0, "message": "OK", "request_id": "r2", "data": {
            "list": [{"dimensions": {"ad_id": r.ad_id,
                                     "stat_time_day": f"{r.day.isoformat()} 00:00:00"},
                      "metrics": {"spend": r.spend, "impressions": str(r.impressions),
                                  "clicks": str(r.clicks), "campaign_id": r.campaign_id,
                                  "campaign_name": r.campaign_name, "adgroup_id": r.adset_id,
                                  "adgroup_name": f"Ad group {r.adset_id}",
                                  "ad_name": f"Ad {r.ad_id}", "currency": r.currency}}
                     for r in chunk],
            "page_info": {"page": page, "page_size": self.PAGE, "total_number": len(rows),
                          "total_page": total_page}}})


class AppleStandIn(StandIn):
    """`POST /token` (client credentials: the client secret checked as an ES256 JWT) and
    `POST /v1/reports/apps/{campaigns|adgroups}/query`."""

    def answer(self, seen):
        if seen.path == "/token":
            form = parse_qs(seen.body.decode())
            try:
                claims = jwt.decode(form["client_secret"][0], APPLE_KEY.public_key(),
                                    algorithms=["ES256"], audience="https://appleid.apple.com")
            except (KeyError, jwt.PyJWTError):
                return Scripted(400, {"error": "invalid_client"})
            header = jwt.get_unverified_header(form["client_secret"][0])
            if (claims["sub"], claims["iss"], header["kid"]) != (
                    APPLE_CLIENT_ID, APPLE_TEAM_ID, APPLE_KEY_ID) or \
                    form.get("grant_type") != ["client_credentials"] or \
                    form.get("scope") != ["searchadsorg"]:
                return Scripted(400, {"error": "invalid_client"})
            return Scripted(200, {"access_token": APPLE_ACCESS_TOKEN, "token_type": "Bearer",
                                  "expires_in": 3600})
        if seen.headers.get("authorization") != f"Bearer {APPLE_ACCESS_TOKEN}":
            return Scripted(401, {"error": {"errors": [{"messageCode": "UNAUTHORIZED",
                                                        "message": "Invalid token"}]}})
        body = json.loads(seen.body)
        window = body["timeRange"]
        rows = self.in_window(date.fromisoformat(window["start"]),
                              date.fromisoformat(window["end"]))
        if seen.path.endswith("/campaigns/query"):
            campaigns = {r.campaign_id: r.campaign_name for r in rows}
            return Scripted(200, {"result": {"rows": [
                {"metadata": {"id": int(cid), "name": name}, "granularMetrics": []}
                for cid, name in campaigns.items()]}, "error": None})
        campaign = body["filters"][0]["value"][0]
        groups: dict[str, list[Served]] = {}
        for r in rows:
            if r.campaign_id == campaign:
                groups.setdefault(r.adset_id, []).append(r)
        return Scripted(200, {"result": {"rows": [
            {"metadata": {"id": int(gid), "campaignId": int(campaign),
                          "name": f"Ad group {gid}"},
             "granularMetrics": [{"date": r.day.isoformat(),
                                  "localSpend": {"amount": r.spend, "currency": r.currency},
                                  "impressions": r.impressions, "taps": r.clicks}
                                 for r in group]}
            for gid, group in groups.items()]}, "error": None})


APPLE_CLIENT_ID = "SEARCHADS.27478e71-3bb0-4588-998c-182e2b405577"
APPLE_TEAM_ID = "SEARCHADS.27478e71-3bb0-4588-998c-182e2b405577"
APPLE_KEY_ID = "bacaebda-e219-41ee-a907-e2c25b24d1b2"

COSTS = {
    "meta": {"ad_account_id": "act_1234567", "access_token": META_TOKEN},
    "google_ads": {"customer_id": "123-456-7890", "login_customer_id": "9876543210",
                   "client_id": "1234-abc.apps.googleusercontent.com",
                   "client_secret": GOOGLE_CLIENT_SECRET, "refresh_token": GOOGLE_REFRESH_TOKEN},
    "tiktok": {"advertiser_id": "7000000000001", "access_token": TIKTOK_TOKEN},
    "apple_ads": {"org_id": "40669820", "client_id": APPLE_CLIENT_ID, "team_id": APPLE_TEAM_ID,
                  "key_id": APPLE_KEY_ID, "private_key": APPLE_PRIVATE_PEM},
}
STAND_INS = {"meta": MetaStandIn, "google_ads": GoogleStandIn, "tiktok": TikTokStandIn,
             "apple_ads": AppleStandIn}


def week(today: date, *, ads: int = 3, spend: str = "12.34") -> list[Served]:
    """Seven days of `ads` ads in two campaigns, ending `today`."""
    rows = []
    for back in range(7):
        day = today - timedelta(days=back)
        for n in range(ads):
            campaign = "111" if n % 2 == 0 else "222"
            rows.append(Served(day, campaign, f"5{n}", f"9{n}", spend,
                               campaign_name="Summer iOS" if campaign == "111" else "Winter"))
    return rows


@pytest.fixture
def stand_in(ca, trusted_ca, private_destinations_allowed, settings):  # noqa: F811
    """Start the stand-in of a network; the settings point that network's URLs at it."""
    started: list[StandIn] = []

    def start(network: str) -> StandIn:
        server = STAND_INS[network](ca)
        started.append(server)
        origin = server.origin
        if network == "meta":
            settings.META_GRAPH_API_URL = origin
        elif network == "google_ads":
            settings.GOOGLE_ADS_REPORTING_API_URL = origin
            settings.GOOGLE_OAUTH_TOKEN_URL = f"{origin}/token"
            settings.GOOGLE_ADS_DEVELOPER_TOKEN = DEV_TOKEN
        elif network == "tiktok":
            settings.TIKTOK_API_URL = origin
        else:
            settings.APPLE_ADS_PLATFORM_API_URL = origin
            settings.APPLE_OAUTH_TOKEN_URL = f"{origin}/token"
        return server

    yield start
    for server in started:
        server.stop()
