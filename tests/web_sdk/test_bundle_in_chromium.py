"""The committed web script in Chromium, on a site of another origin whose Content-Security-Policy
is as strict as docs/web-sdk-wire.md says a site may be (`script-src 'self' <service>;
style-src 'self'`, nothing else allowed). The service is a stand-in that serves static/web_sdk/
and answers the web endpoints the way the contract says, recording every request: the script's
own behaviour in a real browser, before and apart from the server's. No database.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.browser.helpers import CHROMIUM, CHROMIUM_ARGS, SCREENSHOTS, Troubles
from tests.links.visitors import ANDROID_CHROME

pytestmark = [pytest.mark.browser]

SERVED = Path(__file__).resolve().parent.parent.parent / "static" / "web_sdk"
KEY = "wk_test_0123456789"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
TYPES = {".js": "text/javascript", ".css": "text/css"}


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: dict


@dataclass
class StandIn:
    """A server on 127.0.0.1 with what it answers and what it was asked."""

    url: str = ""
    seen: list[Seen] = field(default_factory=list)
    banner: dict | None = None
    installs: dict[str, dict] = field(default_factory=dict)

    def to(self, path: str) -> list[Seen]:
        return [request for request in self.seen if request.path == path]


def serve(handler: type[BaseHTTPRequestHandler]) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def service_handler(state: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def answer(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            if "Origin" in self.headers:
                self.send_header("Access-Control-Allow-Origin", self.headers["Origin"])
            self.end_headers()
            self.wfile.write(body)

        def record(self, body: dict) -> Seen:
            url = urlsplit(self.path)
            seen = Seen(self.command, url.path, {k: v[0] for k, v in parse_qs(url.query).items()},
                        dict(self.headers), body)
            state.seen.append(seen)
            return seen

        def do_OPTIONS(self) -> None:  # a preflight: the script must never cause one
            self.record({})
            self.answer(204, b"", "text/plain")

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            if url.path.startswith("/sdk/web/"):
                file = SERVED / url.path.removeprefix("/sdk/web/")
                self.answer(200, file.read_bytes(), TYPES[file.suffix])
            elif url.path == "/api/v1/web/banner":
                self.record({})
                self.answer(200, json.dumps({"success": True, "data": state.banner}).encode(),
                            "application/json")
            else:
                self.answer(404, b"", "text/plain")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            seen = self.record(json.loads(self.rfile.read(length) or b"{}"))
            data: dict = {}
            if seen.path == "/api/v1/web/visits":
                # A web id keeps its first visit's attribution, as the install keeps it.
                web_id = seen.body["web_id"]
                paid = bool(seen.body.get("utm_source"))
                is_new = web_id not in state.installs
                state.installs.setdefault(web_id, {
                    "mediaSource": seen.body.get("utm_source"),
                    "campaignId": seen.body.get("utm_campaign"),
                    "matchType": "utm" if paid else "organic", "isOrganic": not paid})
                data = {"webId": web_id, "isNew": is_new, "attribution": state.installs[web_id]}
            self.answer(200, json.dumps({"success": True, "data": data}).encode(),
                        "application/json")

    return Handler


def site_handler(service_url: str) -> type[BaseHTTPRequestHandler]:
    """The site: its page and its own script, under a strict policy that names the service."""
    policy = (f"default-src 'none'; script-src 'self' {service_url}; style-src 'self'; "
              f"connect-src {service_url}; img-src 'self'")
    page = (f'<!doctype html><html><head><title>Shop</title>'
            f'<meta name="viewport" content="width=device-width">'
            f'<script src="/site.js"></script>'
            f'<script src="{service_url}/sdk/web/v1.js" data-key="{KEY}" async></script>'
            f'</head><body><h1>Red shoes</h1></body></html>').encode()
    site_js = b"""
window.Attribution = window.Attribution || {q: []};
Attribution.q.push(["track", "purchase", {amount: 9.99, currency: "USD"}]);
Attribution.q.push(["showBanner"]);
"""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            body, kind = (site_js, "text/javascript") if self.path == "/site.js" else (
                page, "text/html; charset=utf-8")
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Security-Policy", policy)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@pytest.fixture
def stand_in() -> Iterator[StandIn]:
    state = StandIn()
    server, state.url = serve(service_handler(state))
    state.banner = {
        "title": "Shop app", "body": "Faster in the app", "button": "Open",
        "icon_url": None, "platforms": ["android", "ios"], "dismiss_days": 7,
        "deep_link_value": "product/{path}", "carry_visit_source": True,
        "link": f"{state.url}/l/Ab3xYz",
    }
    yield state
    server.shutdown()


@pytest.fixture
def site(stand_in) -> Iterator[str]:
    server, url = serve(site_handler(stand_in.url))
    # Another origin than the service's: the same address under another name.
    yield url.replace("127.0.0.1", "localhost")
    server.shutdown()


@pytest.fixture
def phone() -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                              args=CHROMIUM_ARGS)
        context = chromium.new_context(user_agent=ANDROID_CHROME, is_mobile=True,
                                       has_touch=True, viewport={"width": 412, "height": 860})
        context.set_default_timeout(10_000)
        yield context.new_page()
        chromium.close()


def wait_for(page, check, what: str) -> None:
    for _ in range(100):
        if check():
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"never happened: {what}")


def test_a_strict_csp_site_sends_its_visit_and_event_and_shows_the_styled_banner(
        stand_in, site, phone):
    troubles = Troubles()
    troubles.watch(phone)
    phone.goto(f"{site}/shoes/red?utm_source=newsletter&utm_campaign=spring")
    wait_for(phone, lambda: [r.body.get("kind") for r in stand_in.to("/api/v1/web/banner-events")]
             == ["view"], "the banner's view")

    [visit] = stand_in.to("/api/v1/web/visits")
    assert visit.query == {"key": KEY}
    assert visit.headers["Content-Type"] == "text/plain;charset=UTF-8"
    assert visit.headers["Origin"] == site
    assert "Cookie" not in visit.headers
    assert UUID.match(visit.body["web_id"])
    assert visit.body["url"] == f"{site}/shoes/red?utm_source=newsletter&utm_campaign=spring"
    assert (visit.body["utm_source"], visit.body["utm_campaign"]) == ("newsletter", "spring")
    assert visit.body["sdk_version"] == json.loads((SERVED / "manifest.json").read_text())[
        "version"]
    web_id = visit.body["web_id"]

    [event] = stand_in.to("/api/v1/web/events")
    assert event.body["web_id"] == web_id and event.body["event_name"] == "purchase"
    assert event.body["properties"] == {"amount": 9.99, "currency": "USD"}
    assert [r.query for r in stand_in.to("/api/v1/web/banner")] == [{"key": KEY, "web_id": web_id}]
    assert [r for r in stand_in.seen if r.method == "OPTIONS"] == []  # text/plain: no preflight

    # The banner's own stylesheet applies under `style-src 'self'` (a constructable sheet).
    banner = phone.locator("[data-attribution-banner] .banner")
    assert banner.evaluate("e => getComputedStyle(e).display") == "flex"
    assert phone.locator("[data-attribution-banner]").evaluate(
        "e => getComputedStyle(e).position") == "fixed"
    assert phone.locator("[data-attribution-banner] .title").inner_text() == "Shop app"
    href = phone.locator("[data-attribution-banner] a.go").get_attribute("href")
    assert urlsplit(href).path == "/l/Ab3xYz"
    assert {k: v[0] for k, v in parse_qs(urlsplit(href).query).items()} == {
        "web_id": web_id, "web_via": "banner", "pid": "newsletter", "c": "spring",
        "deep_link_value": "product/shoes/red"}
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=SCREENSHOTS / "web-sdk-banner.png")

    phone.locator("[data-attribution-banner] button.close").click()
    wait_for(phone, lambda: len(stand_in.to("/api/v1/web/banner-events")) == 2, "the dismissal")
    assert stand_in.to("/api/v1/web/banner-events")[1].body["kind"] == "dismiss"
    assert phone.locator("[data-attribution-banner]").count() == 0
    cookies = {c["name"]: c for c in phone.context.cookies(site)}
    assert cookies["_attr_wid"]["value"] == web_id
    assert cookies["_attr_wid"]["sameSite"] == "Lax"
    assert phone.evaluate("localStorage.getItem('_attr_wid')") == web_id

    # The next page: the same web id, no banner (dismissed), the stored attribution at hand.
    phone.goto(f"{site}/cart")
    wait_for(phone, lambda: len(stand_in.to("/api/v1/web/visits")) == 2, "the second visit")
    assert stand_in.to("/api/v1/web/visits")[1].body["web_id"] == web_id
    phone.wait_for_function("Attribution.getAttribution()?.isNew === false")
    assert phone.evaluate("Attribution.getAttribution().attribution.mediaSource") == "newsletter"
    assert len(stand_in.to("/api/v1/web/banner")) == 1
    assert troubles.none(), troubles


def test_an_opted_out_browser_sends_nothing_on_later_pages(stand_in, site, phone):
    troubles = Troubles()
    troubles.watch(phone)
    phone.goto(f"{site}/")
    wait_for(phone, lambda: len(stand_in.to("/api/v1/web/banner-events")) == 1, "the first page")
    phone.evaluate("Attribution.optOut()")
    assert phone.evaluate("Attribution.getWebId()") is None
    assert "_attr_wid" not in {c["name"] for c in phone.context.cookies(site)}
    asked = len(stand_in.seen)

    phone.goto(f"{site}/again")
    phone.wait_for_function("window.Attribution && window.Attribution.version")
    phone.evaluate("Attribution.track('after_opt_out')")
    phone.wait_for_timeout(500)
    assert len(stand_in.seen) == asked
    assert phone.evaluate("localStorage.getItem('_attr_optout')") == "1"
    assert troubles.none(), troubles
