"""Short links in a real browser (docs/links.md): a link built in the console (its errors beside the
fields, its page with the QR code and report), then followed by Chromium posing as an iPhone, an
Android phone, a desktop and Instagram's in-app browser, each landing on its destination (the
Play Store URL carrying the click in its referrer) or, in the app, on the interstitial whose
"Open" link leads there; a preview crawler gets the Open Graph page and counts no click. Then
the deferred flow: the phone's click with its device id, the install's `deepLink`, and the
link's report showing the click and the install.

The stores and the web destination are never reached: Chrome's own request interception (the
DevTools Fetch domain, which also pauses the requests a redirect makes, unlike Playwright's
`route`) answers every request to another host with a stand-in page and records its URL.
"""

from __future__ import annotations

import base64
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from tests.browser.helpers import DESKTOP, stored
from tests.browser.steps import (
    api_create_key,
    api_sign_up,
    body_scrolls_sideways,
    expect,
    log_in,
    open_app_page,
    send_install,
)
from tests.links.visitors import (
    ANDROID_CHROME,
    CRAWLERS,
    DESKTOP_CHROME,
    IN_APP_BROWSERS,
    IPHONE_SAFARI,
)

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]

PACKAGE = "com.acme.runner"
PLAY = f"https://play.google.com/store/apps/details?id={PACKAGE}"
APP_STORE = "https://apps.apple.com/app/runner/id6450000001"
WEB = "https://www.runner.example/summer"
STAND_IN = b"<!doctype html><title>Elsewhere</title><p>A page on another host.</p>"


def create_app(service, token: str) -> str:
    """An Android app with both store URLs, as the API makes it."""
    answer = requests.post(service.api("apps"), headers={"Authorization": f"Bearer {token}"},
                           json={"name": "Runner", "platform": "android",
                                 "package_name": PACKAGE, "play_store_url": PLAY,
                                 "app_store_url": APP_STORE}, timeout=10)
    assert answer.status_code == 201, answer.text
    app_id = answer.json()["data"]["app"]["id"]
    return app_id


def create_link(service, token: str, app_id: str, **fields) -> dict:
    answer = requests.post(service.api("links"), headers={"Authorization": f"Bearer {token}"},
                           json={"app_id": app_id, **fields}, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()["data"]["link"]


def link_clicks(link_id: str) -> list:
    from tracking.models import ClickArchive

    return stored(lambda: list(ClickArchive.objects.filter(link_id=link_id)
                               .order_by("clicked_at")))


class Visitor:
    """A browser tab posing as one device, kept on the service: every request to another host
    is answered with a stand-in page by Chrome's Fetch interception, its URL recorded."""

    def __init__(self, browser, service, troubles, *, user_agent: str, viewport=None):
        self.context = browser.new_context(base_url=service.url, user_agent=user_agent,
                                           viewport=viewport or {"width": 390, "height": 844})
        self.context.set_default_timeout(10_000)
        self.page = self.context.new_page()
        troubles.watch(self.page)
        self.own = service.url
        self.elsewhere: list[str] = []
        self.cdp = self.context.new_cdp_session(self.page)
        self.cdp.on("Fetch.requestPaused", self._paused)
        self.cdp.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})

    def _paused(self, event) -> None:
        url = event["request"]["url"]
        if url.startswith(self.own + "/"):
            self.cdp.send("Fetch.continueRequest", {"requestId": event["requestId"]})
            return
        self.elsewhere.append(url)
        self.cdp.send("Fetch.fulfillRequest", {
            "requestId": event["requestId"], "responseCode": 200,
            "responseHeaders": [{"name": "Content-Type", "value": "text/html"}],
            "body": base64.b64encode(STAND_IN).decode()})

    def landed_on(self) -> str:
        """The one page of another host the tab was sent to (its favicon request aside)."""
        pages = [url for url in self.elsewhere if not url.endswith("/favicon.ico")]
        assert len(pages) == 1, pages
        assert self.page.url == pages[0]
        return pages[0]

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def visitor(browser, service, troubles):
    opened: list[Visitor] = []

    def open_as(user_agent: str, **kwargs) -> Visitor:
        opened.append(Visitor(browser, service, troubles, user_agent=user_agent, **kwargs))
        return opened[-1]

    yield open_as
    for each in opened:
        each.close()


def report_total(page, figure: str) -> str:
    return page.locator(f'[data-total="{figure}"]').inner_text()


def test_a_link_built_in_the_console_sends_each_device_to_its_destination(
        page, service, screenshot, visitor):
    account = api_sign_up(service, email="mia@example.com", company="Acme")
    app_id = create_app(service, account.token)
    log_in(page, account)
    page.goto(f"/console/apps/{app_id}/")

    # The builder: a refused destination is shown beside its field, as the API says it.
    open_app_page(page, "Links")
    expect(page.get_by_text("No links yet.")).to_be_visible()
    page.get_by_role("link", name="New link").first.click()
    expect(page.locator("#help_android_url")).to_have_text(f"Empty: {PLAY}")  # the default
    page.get_by_label("Name (optional)").fill("Summer <b>sale</b>")
    page.get_by_label("Media source").fill("instagram")
    page.get_by_label("Campaign (optional)").fill("summer")
    page.get_by_label("Deep link value (optional)").fill("product/42")
    page.get_by_label("Parameter 1 key").fill("coupon")
    page.get_by_label("Parameter 1 value").fill("SUMMER10")
    page.get_by_label("Web destination, for desktops and other devices (optional)").fill(
        "javascript:alert(1)")
    page.get_by_label("Preview title (optional)").fill("Runner: summer sale")
    page.get_by_label("Preview description (optional)").fill("Ten percent off every plan")
    page.get_by_label("Code (optional)").fill("summer")
    page.get_by_role("button", name="Create link").click()
    expect(page.locator("#err_web_url")).to_have_text("Must be an absolute http(s) URL.")
    expect(page.get_by_label("Parameter 1 value")).to_have_value("SUMMER10")  # kept
    screenshot("link-form")
    page.get_by_label("Web destination, for desktops and other devices (optional)").fill(WEB)
    page.get_by_role("button", name="Create link").click()

    # The link's page: short URL, QR code from the console, an empty report.
    expect(page.get_by_text("Created the link.")).to_be_visible()
    short_url = f"{service.url}/l/summer"
    expect(page.get_by_label("Short URL")).to_have_value(short_url)
    qr = page.get_by_role("img", name=f"QR code of {short_url}")
    expect(qr).to_be_visible()
    assert "/console/apps/" in qr.get_attribute("src")
    assert qr.evaluate("image => image.complete && image.naturalWidth > 0")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download PNG").click()
    assert download.value.suggested_filename == "link-summer.png"
    expect(page.locator('[data-total="clicks"]')).to_have_text("0")
    link_url = page.url

    # Followed by each kind of visitor.
    iphone = visitor(IPHONE_SAFARI)
    iphone.page.goto(short_url)
    assert iphone.landed_on() == APP_STORE

    android = visitor(ANDROID_CHROME)
    android.page.goto(short_url)
    store = android.landed_on()
    assert store.startswith(PLAY + "&referrer=")
    referrer = parse_qs(parse_qs(urlsplit(store).query)["referrer"][0])
    android_click = link_clicks_after(short_url, count=2)[-1]
    assert referrer["click_id"] == [str(android_click.id)]
    assert referrer["pid"] == ["instagram"] and referrer["c"] == ["summer"]

    desktop = visitor(DESKTOP_CHROME, viewport=DESKTOP)
    desktop.page.goto(short_url)
    assert desktop.landed_on() == WEB

    in_app = visitor(IN_APP_BROWSERS["Instagram"])
    in_app.page.goto(short_url)
    assert in_app.page.url == short_url and in_app.elsewhere == []
    expect(in_app.page.get_by_role("heading", name="Runner")).to_be_visible()
    expect(in_app.page.get_by_text("This link opens Runner.")).to_be_visible()
    in_app.page.screenshot(path=screenshot_path(screenshot, "link-interstitial"), full_page=True)
    in_app.page.get_by_role("link", name="Open", exact=True).click()
    in_app.page.wait_for_url(APP_STORE)
    assert in_app.landed_on() == APP_STORE

    crawler = visitor(CRAWLERS["facebookexternalhit"], viewport=DESKTOP)
    crawler.page.goto(short_url)
    assert crawler.elsewhere == []
    expect(crawler.page.get_by_role("heading", name="Runner: summer sale")).to_be_visible()
    og = crawler.page.locator('meta[property="og:title"]')
    assert og.get_attribute("content") == "Runner: summer sale"
    assert crawler.page.locator('meta[property="og:description"]').get_attribute(
        "content") == "Ten percent off every plan"
    crawler.page.screenshot(path=screenshot_path(screenshot, "link-preview"), full_page=True)

    # Four visitors clicked; the crawler did not.
    assert len(link_clicks_after(short_url, count=4)) == 4
    page.goto(link_url)
    expect(page.locator('[data-total="clicks"]')).to_have_text("4")
    expect(page.locator('[data-total="installs"]')).to_have_text("0")
    screenshot("link-detail")

    open_app_page(page, "Links")
    row = page.get_by_role("row", name="Summer <b>sale</b>")
    expect(row).to_contain_text(short_url)
    expect(row).to_contain_text("instagram / summer")
    screenshot("links-list")
    row.get_by_role("button", name=f"Copy {short_url}").click()
    assert page.evaluate("navigator.clipboard.readText()") == short_url


def screenshot_path(screenshot, name: str):
    """Where the `screenshot` fixture keeps a screenshot of this name (for another tab)."""
    from tests.browser.helpers import SCREENSHOTS

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}.png"


def link_clicks_after(short_url: str, *, count: int) -> list:
    """The clicks of the link behind `short_url`, which must be `count` by now (each was
    committed before its answer)."""
    from links.models import Link

    code = short_url.rsplit("/", 1)[1]
    link = stored(lambda: Link.objects.get(code=code, domain__isnull=True))
    clicks = link_clicks(link.id)
    assert len(clicks) == count, [click.user_agent for click in clicks]
    return clicks


def test_a_phone_follows_a_link_installs_and_opens_the_deep_link_and_the_report_shows_it(
        page, service, screenshot, visitor):
    account = api_sign_up(service, email="ops@example.com", company="Acme")
    app_id = create_app(service, account.token)
    key = api_create_key(service, account.token, app_id)
    link = create_link(service, account.token, app_id, name="Launch", media_source="tiktok",
                       campaign_id="launch", deep_link_value="onboarding/coach",
                       params={"coach": "anna"})
    device_id = str(uuid.uuid4())

    # The phone's browser follows the link with its advertising id appended by the network.
    phone = visitor(ANDROID_CHROME)
    phone.page.goto(f"{link['short_url']}?advertising_id={device_id}")
    assert phone.landed_on().startswith(PLAY + "&referrer=")

    # First launch: the SDK reports the install and receives the link's deep link.
    answer = send_install(service, key, app_id, device_id=device_id)
    assert answer.status_code == 201, answer.text
    body = answer.json()["data"]
    assert body["deepLink"]["value"] == "onboarding/coach"
    assert body["deepLink"]["params"] == {"coach": "anna"}
    assert body["deepLink"]["link_id"] == link["id"]
    again = send_install(service, key, app_id, device_id=device_id).json()["data"]
    assert again["deepLink"] == body["deepLink"]

    # The link's report in the console: one click, one install.
    log_in(page, account)
    page.goto(f"/console/apps/{app_id}/")
    open_app_page(page, "Links")
    page.get_by_role("link", name="Launch").click()
    expect(page.locator('[data-total="clicks"]')).to_have_text("1")
    expect(page.locator('[data-total="installs"]')).to_have_text("1")
    expect(page.locator('[data-total="opens"]')).to_have_text("0")

    # At phone width the page stays within the screen.
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    assert not body_scrolls_sideways(page)
    screenshot("link-detail-phone")


def test_a_link_is_edited_and_deleted_through_its_confirmation(page, service, screenshot):
    account = api_sign_up(service, email="lee@example.com", company="Acme")
    app_id = create_app(service, account.token)
    link = create_link(service, account.token, app_id, name="Spring", media_source="facebook",
                       params={"ref": "fb"})
    log_in(page, account)
    page.goto(f"/console/apps/{app_id}/links")
    page.get_by_role("link", name="Spring").click()
    page.get_by_role("link", name="Edit").click()
    expect(page.get_by_label("Parameter 1 key")).to_have_value("ref")
    expect(page.get_by_text(link["short_url"])).to_be_visible()
    page.get_by_label("Name (optional)").fill("Spring again")
    page.get_by_label("Parameter 2 key").fill("ref")
    page.get_by_label("Parameter 2 value").fill("twice")
    page.get_by_role("button", name="Save changes").click()
    expect(page.locator("#err_param_1")).to_have_text("This key is given twice.")
    page.get_by_label("Parameter 2 key").fill("coupon")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_text("Saved the link.")).to_be_visible()
    expect(page.get_by_role("heading", name="Spring again")).to_be_visible()
    expect(page.get_by_text("coupon")).to_be_visible()

    page.get_by_role("link", name="Delete…").click()
    expect(page.get_by_role("heading", name="Delete this link?")).to_be_visible()
    page.get_by_role("button", name="Delete the link").click()
    expect(page.get_by_text("Deleted the link.")).to_be_visible()
    expect(page.get_by_text("No links yet.")).to_be_visible()
    assert page.goto(f"/console/apps/{app_id}/links/{link['id']}").status == 404


def test_a_code_that_names_no_link_shows_the_styled_fallback_page(
        page, service, screenshot):
    answer = page.goto("/l/no-such-code")
    assert answer.status == 404
    expect(page.get_by_role("heading")).to_contain_text("This link is no longer active")
    # The page's stylesheet loaded under its own policy: the heading is styled, not default.
    assert page.evaluate("getComputedStyle(document.querySelector('main')).textAlign") == "center"
    screenshot("link-fallback")
