"""The web half end to end in Debian's Chromium: the service's web process (as the README
starts it) on this test's database, and a site on another origin whose pages carry the snippet
under a strict Content-Security-Policy (`script-src 'self' <service>; style-src 'self'`).
A click, a UTM visit and an organic one are attributed; a purchase is the web app's revenue;
requireConsent, optOut and GPC send nothing they should not; a page of an origin that is not
the key's gets nothing recorded (docs/web.md)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests
from django.conf import settings
from django.utils import timezone

from consent.models import ConsentRecord
from tests.browser.helpers import CHROMIUM, CHROMIUM_ARGS, Troubles, stored
from tests.factories import AppFactory, issue_key
from tests.links.visitors import DESKTOP_CHROME
from tests.processes import (
    Process,
    free_port,
    readme_web_command,
    service_env,
    wait_until_healthy,
)
from tracking.models import Event, Install
from web.models import WebId

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.redis]

GPC = "Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', {get: () => true});"


def site_handler(service_url: str, key: str) -> type[BaseHTTPRequestHandler]:
    """Pages carrying the snippet (one with data-require-consent) and the site's own script,
    under the strict policy the issue names."""
    policy = f"script-src 'self' {service_url}; style-src 'self'"

    def page(extra: str = "") -> bytes:
        return (f'<!doctype html><html><head><title>Shop</title>'
                f'<script src="/site.js"></script>'
                f'<script src="{service_url}/sdk/web/v1.js" data-key="{key}"{extra} async>'
                f'</script></head><body><h1>Shop</h1></body></html>').encode()

    files = {
        "/site.js": (b"window.Attribution = window.Attribution || {q: []};\n"
                     b"if (location.pathname === '/buy') Attribution.q.push("
                     b"['track', 'purchase', {amount: 9.99, currency: 'USD'}]);\n",
                     "text/javascript"),
        "/consent": (page(" data-require-consent"), "text/html; charset=utf-8"),
    }

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            body, kind = files.get(path, (page(), "text/html; charset=utf-8"))
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Security-Policy", policy)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@pytest.fixture
def web_service(transactional_db, tmp_path) -> Iterator[str]:
    """The README's web process alone on this test's database and Redis."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = service_env(GUNICORN_BIND=f"127.0.0.1:{port}", ALLOWED_HOSTS="127.0.0.1,localhost")
    with ExitStack() as stack:
        web = Process(readme_web_command(), env=env, log_path=tmp_path / "web.log",
                      cwd=Path(settings.BASE_DIR))
        stack.callback(web.stop)
        wait_until_healthy(web, url)
        yield url


@pytest.fixture
def world(web_service, owner):
    """A web app, its web key for the site's origin, the site, and a site of another origin
    using the same key."""
    app = AppFactory(organization=owner.organization, platform="web", domain="shop.example",
                     package_name=None, play_store_url=None, app_store_url=None)
    servers = []

    def start() -> str:
        """A server listening, whose handler is set once the key (which names its port) is
        made. `localhost`: the same address as the service's under another name, so another
        origin."""
        server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
        servers.append(server)
        return f"http://localhost:{server.server_address[1]}"

    site, stranger = start(), start()
    key = issue_key(app, kind="web", allowed_origins=[site])
    for server in servers:
        server.RequestHandlerClass = site_handler(web_service, key)
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield {"app": app, "site": site, "stranger": stranger, "key": key, "service": web_service}
    for server in servers:
        server.shutdown()


@pytest.fixture
def chromium() -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Tab:
    """A fresh browser (its own storage: a new web id) and the calls it made to the web API."""

    def __init__(self, chromium, *, gpc: bool = False):
        # A person's browser: headless Chromium's own User-Agent is a bot's, whose clicks the
        # bots rule does not record (docs/fraud.md).
        self.context = chromium.new_context(user_agent=DESKTOP_CHROME)
        self.context.set_default_timeout(10_000)
        if gpc:
            self.context.add_init_script(GPC)
        self.page = self.context.new_page()
        self.troubles = Troubles()
        self.troubles.watch(self.page)
        self.calls: list[tuple[str, int | None]] = []
        self.page.on("request", lambda r: self._sent(r))

    def _sent(self, request) -> None:
        if "/api/v1/web/" in request.url:
            self.calls.append((request.url.split("/api/v1/web/")[1].split("?")[0],
                               request.post_data))

    def web_calls(self, name: str) -> list:
        return [body for path, body in self.calls if path == name]

    def web_id(self) -> str | None:
        return self.page.evaluate("window.Attribution && Attribution.getWebId && "
                                  "Attribution.getWebId()")

    def wait(self, check, what: str) -> None:
        for _ in range(100):
            if check():
                return
            self.page.wait_for_timeout(100)
        raise AssertionError(f"never happened: {what}")


def install_of(app, web_id: str):
    return stored(lambda: Install.objects.filter(app_id=app.id, device_id=web_id).first())


def attributed(tab: Tab) -> dict:
    tab.page.wait_for_function(
        "() => window.Attribution && Attribution.getAttribution && Attribution.getAttribution()")
    return tab.page.evaluate("Attribution.getAttribution()")


def test_click_utm_and_organic_visits_are_attributed_and_a_purchase_is_revenue(
        world, chromium, owner_api, settings):
    settings.ANALYTICS_REFRESH_ON_READ = True  # the report reads the rollups as they are now
    app, site = world["app"], world["site"]

    clicked = Tab(chromium)
    clicked.page.goto(f"{world['service']}/api/v1/clicks?app_id={app.id}&pid=newsletter"
                      f"&c=spring&redirect_url={site}/landing")
    assert "attribution_click_id=" in clicked.page.url
    answer = attributed(clicked)
    assert answer["isNew"] is True and answer["attribution"] == {
        "mediaSource": "newsletter", "campaignId": "spring", "matchType": "click_id",
        "isOrganic": False}
    assert install_of(app, clicked.web_id()).match_type == "click_id"

    utm = Tab(chromium)
    utm.page.goto(f"{site}/shoes?utm_source=google&utm_campaign=brand")
    assert attributed(utm)["attribution"]["matchType"] == "utm"
    assert install_of(app, utm.web_id()).media_source == "google"

    organic = Tab(chromium)
    organic.page.goto(f"{site}/")
    assert attributed(organic)["attribution"]["isOrganic"] is True

    utm.page.goto(f"{site}/buy")
    web_id = utm.web_id()
    utm.wait(lambda: stored(lambda: Event.objects.filter(app_id=app.id, device_id=web_id)
                            .exists()), "the purchase")
    event = stored(lambda: Event.objects.get(app_id=app.id, device_id=web_id))
    assert event.event_name == "purchase" and event.revenue_currency == "USD"
    assert event.install_id == install_of(app, web_id).id
    today = timezone.now().date()
    report = stored(lambda: owner_api.get("/api/v1/analytics/revenue", {
        "app_id": str(app.id), "start_date": str(today - timedelta(days=1)),
        "end_date": str(today + timedelta(days=1))}))
    assert report.status_code == 200 and "9.99" in report.content.decode()
    for tab in (clicked, utm, organic):
        assert tab.troubles.none(), tab.troubles  # no CSP violation, no page error


def test_require_consent_sends_nothing_until_consent_and_opt_out_sends_nothing_more(
        world, chromium):
    app, site = world["app"], world["site"]
    tab = Tab(chromium)
    tab.page.goto(f"{site}/consent")
    tab.page.wait_for_function("() => window.Attribution && Attribution.setConsent")
    tab.page.wait_for_timeout(700)
    assert tab.calls == []
    assert tab.page.evaluate("Object.keys(localStorage).length") == 0
    assert tab.page.evaluate("document.cookie") == ""
    tab.page.evaluate("Attribution.setConsent({ad_user_data: true, ad_personalization: false})")
    tab.wait(lambda: tab.web_calls("visits"), "the visit after consent")
    web_id = tab.web_id()
    tab.wait(lambda: install_of(app, web_id) is not None, "the install")
    row = stored(lambda: ConsentRecord.objects.get(app_id=app.id, device_id=web_id))
    assert (row.ad_user_data, row.ad_personalization, row.sharing_filter) == (True, False, "")

    tab.page.evaluate("Attribution.optOut()")
    sent = len(tab.calls)
    tab.page.goto(f"{site}/buy")
    tab.page.wait_for_function("() => window.Attribution && Attribution.optOut")
    tab.page.wait_for_timeout(700)
    assert len(tab.calls) == sent
    assert tab.troubles.none(), tab.troubles


def test_a_gpc_browser_is_measured_and_never_shared(world, chromium):
    app, site = world["app"], world["site"]
    tab = Tab(chromium, gpc=True)
    tab.page.goto(f"{site}/?utm_source=google")
    attributed(tab)
    assert '"gpc":true' in tab.web_calls("visits")[0].replace(" ", "")
    web_id = tab.web_id()
    assert stored(lambda: ConsentRecord.objects.get(app_id=app.id, device_id=web_id)
                  ).sharing_filter == "all"


def test_a_page_of_another_origin_with_the_key_gets_nothing_recorded(world, chromium):
    app = world["app"]
    tab = Tab(chromium)
    tab.page.goto(f"{world['stranger']}/?utm_source=google")
    tab.wait(lambda: tab.web_calls("visits"), "the visit's try")
    tab.page.wait_for_timeout(700)
    assert stored(lambda: WebId.objects.filter(app_id=app.id).count()) == 0
    assert stored(lambda: Install.objects.filter(app_id=app.id).count()) == 0
    # What the browser was answered (it lets the page read none of it).
    answer = requests.post(f"{world['service']}/api/v1/web/visits?key={world['key']}",
                           data=tab.web_calls("visits")[0],
                           headers={"Origin": world["stranger"], "Content-Type": "text/plain"},
                           timeout=10)
    assert answer.status_code == 403
    assert "Access-Control-Allow-Origin" not in answer.headers
