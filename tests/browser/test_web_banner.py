"""The web-to-app journey in Chromium (docs/web.md, "The banner", "Web to app"): a shop's page
on another origin, under a strict Content-Security-Policy, with the web script and a web key;
a phone posing as Android Chrome arrives from a newsletter, the banner shows, its button goes
through the Android app's short link to the Play Store (a stand-in: Chrome's own request
interception answers every other host), and the app's first launch, with the Play Store's
referrer, is attributed to that click with the page's deep link and the web journey; the
web-to-app report counts it all.
"""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from tests.browser.helpers import SCREENSHOTS
from tests.browser.steps import api_create_key, api_sign_up
from tests.links.visitors import ANDROID_CHROME

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]

PACKAGE = "com.shop.app"
PLAY = f"https://play.google.com/store/apps/details?id={PACKAGE}"
STAND_IN = b"<!doctype html><title>Play</title><p>The store.</p>"


def site_server(service_url: str, key_holder: dict) -> tuple[ThreadingHTTPServer, str]:
    """The shop: every path is its page with the snippet, under a policy naming the service."""
    policy = (f"default-src 'none'; script-src 'self' {service_url}; style-src 'self'; "
              f"connect-src {service_url}; img-src 'self'")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            if self.path == "/site.js":
                body, kind = (b'window.Attribution = window.Attribution || {q: []};\n'
                              b'Attribution.q.push(["showBanner"]);\n', "text/javascript")
            else:
                body = (f'<!doctype html><html><head><title>Shop</title>'
                        f'<meta name="viewport" content="width=device-width">'
                        f'<script src="/site.js"></script>'
                        f'<script src="{service_url}/sdk/web/v1.js" '
                        f'data-key="{key_holder["key"]}" async></script>'
                        f'</head><body><h1>Red shoes</h1></body></html>').encode()
                kind = "text/html; charset=utf-8"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Security-Policy", policy)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # Another origin than the service's: the same address under another name.
    return server, f"http://localhost:{server.server_address[1]}"


@pytest.fixture
def shop(service) -> Iterator[tuple[str, dict]]:
    key_holder: dict = {}
    server, url = site_server(service.url, key_holder)
    yield url, key_holder
    server.shutdown()


def api(service, token, method, path, body=None):
    answer = requests.request(method, service.api(path), json=body, timeout=10,
                              headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code in (200, 201), answer.text
    return answer.json()["data"]


def wait_for(page, check, what: str) -> None:
    for _ in range(100):
        if check():
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"never happened: {what}")


def test_the_banner_on_android_chrome_leads_through_the_short_link_to_an_attributed_install(
        browser, service, troubles, shop):
    site, key_holder = shop
    token = api_sign_up(service, email="shop@example.com", company="Shop").token
    android = api(service, token, "POST", "apps", {
        "name": "Shop", "platform": "android", "package_name": PACKAGE,
        "play_store_url": PLAY})["app"]["id"]
    web = api(service, token, "POST", "apps", {
        "name": "Shop web", "platform": "web", "domain": "shop.example"})["app"]["id"]
    api(service, token, "PUT", f"apps/{web}", {"linked_apps": [android]})
    api(service, token, "PUT", f"apps/{web}/banner", {
        "title": "Shop in the app", "body": "Checkout in one tap", "button": "Open",
        "platforms": ["android"], "deep_link_value": "product/{path}"})
    key_holder["key"] = api(service, token, "POST", f"apps/{web}/keys", {
        "name": "site", "kind": "web", "allowed_origins": [site]})["key"]["full_key"]
    sdk_key = api_create_key(service, token, android)

    context = browser.new_context(user_agent=ANDROID_CHROME, is_mobile=True, has_touch=True,
                                  viewport={"width": 412, "height": 860})
    context.set_default_timeout(10_000)
    phone = context.new_page()
    troubles.watch(phone)
    elsewhere: list[str] = []
    cdp = context.new_cdp_session(phone)

    def paused(event) -> None:
        url = event["request"]["url"]
        if url.startswith((service.url + "/", site + "/")):
            cdp.send("Fetch.continueRequest", {"requestId": event["requestId"]})
            return
        elsewhere.append(url)
        cdp.send("Fetch.fulfillRequest", {
            "requestId": event["requestId"], "responseCode": 200,
            "responseHeaders": [{"name": "Content-Type", "value": "text/html"}],
            "body": base64.b64encode(STAND_IN).decode()})

    cdp.on("Fetch.requestPaused", paused)
    cdp.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})

    # The visitor arrives from the newsletter; the banner shows on the Android phone.
    phone.goto(f"{site}/shoes/red?utm_source=newsletter&utm_campaign=spring")
    button = phone.locator("[data-attribution-banner] a.go")
    button.wait_for(state="visible")
    assert phone.locator("[data-attribution-banner] .title").inner_text() == "Shop in the app"
    web_id = phone.evaluate("Attribution.getWebId()")
    href = button.get_attribute("href")
    query = {k: v[0] for k, v in parse_qs(urlsplit(href).query).items()}
    assert query == {"web_id": web_id, "web_via": "banner", "pid": "web_banner",
                     "deep_link_value": "product/shoes/red"}
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=SCREENSHOTS / "web-banner-android.png")

    # The button: through the short link to the Play Store, which names the click.
    button.click()
    wait_for(phone, lambda: any(url.startswith(PLAY) for url in elsewhere), "the Play Store")
    store = next(url for url in elsewhere if url.startswith(PLAY))
    referrer = parse_qs(urlsplit(store).query)["referrer"][0]

    # The app's first launch, with the Play Store's referrer.
    answer = requests.post(service.api("installs"), headers={"X-API-Key": sdk_key}, json={
        "app_id": android, "platform": "android", "sdk_version": "1.0",
        "device_id": "5c1d2e3f-0000-4000-8000-00000000beef", "install_referrer": referrer},
        timeout=10)
    assert answer.status_code == 201, answer.text
    data = answer.json()["data"]
    assert (data["mediaSource"], data["matchType"], data["isOrganic"]) == (
        "web_banner", "install_referrer", False)
    assert data["deepLink"]["value"] == "product/shoes/red"

    detail = api(service, token, "GET", f"installs/{data['installId']}")["install"]
    assert detail["web"]["web_id"] == web_id
    assert (detail["web"]["visit_media_source"], detail["web"]["visit_campaign"]) == (
        "newsletter", "spring")

    # The report: the banner's view and click (sent by the page as they happened) and the
    # install they brought, under the visit's source.
    deadline = time.monotonic() + 10
    while True:
        report = api(service, token, "GET", f"analytics/web-to-app?app_id={web}")
        if report["total"]["banner_clicks"] == 1 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert report["total"]["banner_views"] == 1 and report["total"]["banner_clicks"] == 1
    assert report["total"]["installs_from_banner"] == 1
    assert report["by_visit_source"][0]["visit_media_source"] == "newsletter"
    context.close()
    assert troubles.none(), troubles
