"""A new user's first hour against the service as `make run` starts it: the Makefile's own `run`
target (migrate, then Django's runserver with DEBUG=1) on a SQLite file in a temporary
directory, tasks in-process, no PostgreSQL or Redis, driven in Debian's Chromium.

Sign up, an Android app (a bad store URL refused first, then corrected) and an iOS app, a key,
a tracking link from the link builder and a short link; a click through the tracking link with
a 10,000-character campaign (cut, and the Campaigns table stays inside the page), the SDK's
install and a purchase; every page of the app's navigation; the three CSV exports; a webhook
to a plain-http receiver on 127.0.0.1 and its test send, signed; the API docs with every
request off this machine blocked; the SDK set-up page with the app's id and key prefix.

And with no beat and no worker beside it (nothing can run one without Redis), `make run` does
beat's whole job itself (attribution_site/scheduler.py): a postback whose receiver fails first
is tried again when its retry is due, and the delivery log says it was delivered.
"""

from __future__ import annotations

import csv
import io
import os
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import pytest
import requests
from django.conf import settings
from standardwebhooks import Webhook as StandardWebhook

from analytics.exports import EVENT_HEADER, INSTALL_HEADER, REVENUE_HEADER
from tests.browser.helpers import Service, _failed
from tests.browser.steps import (
    APP_URL,
    api_create_app,
    api_create_key,
    api_sign_up,
    body_scrolls_sideways,
    expect,
    open_app_page,
    send_click,
    send_install,
    send_purchase,
    sign_up,
    tile,
)
from tests.delivery.receivers import Receiver, Reply
from tests.processes import Process, free_port, wait_until_healthy

BASE_DIR = Path(settings.BASE_DIR)
DEVICE = "7f1c9a52-3d4e-4b6a-8c2d-0e9f8a7b6c5d"
PACKAGE = "com.acme.runner"
LONG_CAMPAIGN = "summer-" + "x" * (10_000 - len("summer-"))
CUT_CAMPAIGN = LONG_CAMPAIGN[:255]


@contextmanager
def make_run(tmp_path: Path, request, **settings_set: str) -> Iterator[Service]:
    """`make run PORT=<free port>`, with this test's virtualenv, on a SQLite file in the
    test's directory and a fresh clone's environment plus `settings_set`: the console on
    127.0.0.1. Its output is printed when the test fails."""
    port = free_port()
    venv = Path(sys.prefix)
    make_run = Process(f"make --no-print-directory run PORT={port} VENV={venv}",
                       env={**new_users_environment(tmp_path / "db.sqlite3"), **settings_set},
                       log_path=tmp_path / "make-run.log", cwd=BASE_DIR, from_venv=False)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(make_run, url, timeout=90)  # the first run migrates a new file
        # Django's runserver; and with DEBUG on, since without it the missing SECRET_KEY
        # would have stopped the settings from loading.
        assert "Starting development server" in make_run.output()
        yield Service(url=url, processes={"make run": make_run})
    finally:
        make_run.stop()
        if _failed(request):
            print(f"--- {make_run.command}\n{make_run.output()[-6000:]}")


def new_users_environment(database: Path) -> dict[str, str]:
    """This shell's environment without any setting the service reads (as a fresh clone's
    user has none), the SQLite file put in the test's directory instead of the repository."""
    names = set(re.findall(r"^([A-Z][A-Z0-9_]*)=", (BASE_DIR / ".env.example").read_text(),
                           re.M))
    env = {name: value for name, value in os.environ.items() if name not in names}
    env.update(DATABASE_URL=f"sqlite:///{database}", PYTHONUNBUFFERED="1")
    return env


@pytest.fixture
def service(tmp_path, request) -> Iterator[Service]:
    with make_run(tmp_path, request) as running:
        yield running


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A plain-http receiver on 127.0.0.1, as a developer runs one beside `make run`."""
    receiver = Receiver().start()
    yield receiver
    receiver.stop()


@pytest.mark.browser
def test_a_new_user_goes_from_make_run_to_exports_a_local_webhook_and_the_sdk_page(
        page, service, screenshot, receiver):
    sign_up(page, name="Nia New", email="nia@example.com", company="Acme")
    android = create_the_android_app_after_a_refusal(page, screenshot)
    ios = create_the_ios_app(page)
    page.goto(f"/console/apps/{android}/")
    key = create_a_key(page, screenshot)
    link = build_a_tracking_link(page, screenshot)
    create_a_short_link(page, screenshot)

    clicked = requests.get(with_query(link, c=LONG_CAMPAIGN, advertising_id=DEVICE),
                           allow_redirects=False, timeout=10)
    assert clicked.status_code == 302
    installed = send_install(service, key, android, device_id=DEVICE)
    assert installed.status_code == 201, installed.text
    assert installed.json()["data"]["matchType"] == "device_id"
    assert installed.json()["data"]["campaignId"] == CUT_CAMPAIGN
    send_purchase(service, key, android, device_id=DEVICE, amount=4.99)

    the_long_campaign_stays_inside_the_page(page, screenshot)
    open_every_page_of_the_app_nav(page, screenshot, app="Runner")
    page.goto(f"/console/apps/{ios}/")
    open_every_page_of_the_app_nav(page, screenshot, app="Runner iOS")
    the_docs_a_page_mentions_open_from_this_machine(page, screenshot)
    page.goto(f"/console/apps/{android}/")
    download_every_export(page)
    a_webhook_test_reaches_the_local_receiver_signed(page, receiver, screenshot)
    the_sdk_page_shows_the_app_id_and_the_key_prefix(page, screenshot, android, key)
    send_purchase(service, key, android, device_id=DEVICE, amount=10, currency="EUR")
    a_missing_rate_is_said_once_and_added_from_the_console(page, screenshot)
    the_api_docs_render_with_the_outside_world_blocked(page, screenshot)


def test_make_run_tries_a_failed_postback_again_when_due_with_no_beat_or_worker(
        tmp_path, request):
    receiver = Receiver(replies=[Reply(status=503, body=b"busy")]).start()
    request.addfinalizer(receiver.stop)
    # A retry one second after the failure, so the test waits seconds, not the default minute.
    with make_run(tmp_path, request, DELIVERY_RETRY_DELAYS="1") as service:
        token = api_sign_up(service, email="ops@example.com", company="Acme").token
        app_id = api_create_app(service, token, name="Runner", package=PACKAGE)
        key = api_create_key(service, token, app_id)
        auth = {"Authorization": f"Bearer {token}"}
        created = requests.post(service.api("postbacks"), headers=auth, timeout=10, json={
            "app_id": app_id, "media_source": "facebook",
            "postback_url": receiver.url("/pb?d={device_id}&c={campaign_id}")})
        assert created.status_code == 201, created.text
        send_click(service, app_id, device_id=DEVICE, pid="facebook", c="summer")
        installed = send_install(service, key, app_id, device_id=DEVICE)
        assert installed.status_code == 201, installed.text
        assert installed.json()["data"]["mediaSource"] == "facebook"

        first, retry = receiver.wait_for(2, timeout=30)
        assert first.path == retry.path == f"/pb?d={DEVICE}&c=summer"
        logs = wait_for_logs(service, auth, app_id, lambda logs: len(logs) == 2 and all(
            entry["delivery_state"] == "succeeded" for entry in logs))
        assert [(entry["attempt_number"], entry["status_code"], entry["success"])
                for entry in sorted(logs, key=lambda entry: entry["attempt_number"])] == [
            (1, 503, False), (2, 200, True)]
        output = service.processes["make run"].output()
        assert "running beat's schedule in this process" in output
        # The schedule's writes (the analytics refresh every 2 s) and the requests' took turns.
        assert " ERROR " not in output, output


def wait_for_logs(service, auth: dict, app_id: str, done, timeout: float = 15.0) -> list:
    """The app's postback log once `done(logs)`: the sender records a try after the receiver
    has answered it."""
    deadline = time.monotonic() + timeout
    while True:
        logs = requests.get(service.api("postbacks/logs"), params={"app_id": app_id},
                            headers=auth, timeout=10).json()["data"]["logs"]
        if done(logs) or time.monotonic() > deadline:
            return logs
        time.sleep(0.2)


def with_query(url: str, **params: str) -> str:
    parts = urlsplit(url)
    query = {name: values[0] for name, values in parse_qs(parts.query).items()} | params
    return urlunsplit(parts._replace(query=urlencode(query)))


def create_the_android_app_after_a_refusal(page, screenshot) -> str:
    page.goto("/console/apps/new")
    page.get_by_role("textbox", name="Name", exact=True).fill("Runner")
    page.get_by_role("radio", name="Android").check()
    page.get_by_label("Package name (Android)").fill(PACKAGE)
    page.get_by_label("Play Store URL").fill("play store, somewhere")
    page.get_by_role("button", name="Create app").click()
    expect(page.get_by_role("heading", name="New app")).to_be_visible()
    expect(page.get_by_label("Play Store URL")).to_have_attribute("aria-invalid", "true")
    # The untouched fingerprints box comes back empty, so the corrected submit can succeed.
    fingerprints = page.get_by_label("SHA-256 signing certificate fingerprints (Android)")
    expect(fingerprints).to_have_value("")
    screenshot("makerun-new-app-refused")
    page.get_by_label("Play Store URL").fill(
        f"https://play.google.com/store/apps/details?id={PACKAGE}")
    page.get_by_role("button", name="Create app").click()
    page.wait_for_url(APP_URL)
    return APP_URL.search(page.url)["app_id"]


def create_the_ios_app(page) -> str:
    page.goto("/console/apps/new")
    page.get_by_role("textbox", name="Name", exact=True).fill("Runner iOS")
    page.get_by_role("radio", name="iOS").check()
    page.get_by_label("Bundle id (iOS)").fill(PACKAGE)
    page.get_by_label("App Store URL").fill("https://apps.apple.com/app/runner/id6450000001")
    page.get_by_role("button", name="Create app").click()
    page.wait_for_url(APP_URL)
    return APP_URL.search(page.url)["app_id"]


def create_a_key(page, screenshot) -> str:
    open_app_page(page, "Keys")
    page.get_by_role("link", name="New key").first.click()
    page.get_by_role("textbox", name="Name", exact=True).fill("android sdk")
    page.get_by_role("checkbox", name="write").check()
    # A key that signs its requests shows its signing secret once beside it; the app's signing
    # mode stays off, so the unsigned requests below are taken (docs/fraud.md).
    page.get_by_role("checkbox", name="Signs its requests").check()
    page.get_by_role("button", name="Create key").click()
    expect(page.get_by_role("heading", name="Key created")).to_be_visible()
    screenshot("makerun-key-created")
    key = page.get_by_label(re.compile("^API key")).input_value()
    assert re.fullmatch(r"[0-9a-f]{64}", page.get_by_label("Signing secret").input_value())
    page.get_by_role("link", name="Done: back to the keys").click()
    return key


def build_a_tracking_link(page, screenshot) -> str:
    open_app_page(page, "Link builder")
    page.get_by_label("Media source").fill("facebook")
    page.get_by_label("Campaign (optional)").fill("summer")
    page.get_by_role("button", name="Build the link").click()
    link = page.get_by_label("Copy it into the ad's click URL").input_value()
    assert parse_qs(urlsplit(link).query)["pid"] == ["facebook"]
    screenshot("makerun-link-builder")
    return link


def create_a_short_link(page, screenshot) -> None:
    open_app_page(page, "Links")
    page.get_by_role("link", name="New link").click()
    page.get_by_label("Media source").fill("instagram")
    page.get_by_label("Campaign (optional)").fill("stories")
    page.get_by_role("button", name="Create link").click()
    short_url = page.get_by_label("Short URL").input_value()
    screenshot("makerun-short-link")
    followed = requests.get(short_url, allow_redirects=False, timeout=10, headers={
        "User-Agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile"})
    assert followed.status_code == 302, followed.text
    assert followed.headers["Location"].startswith(
        f"https://play.google.com/store/apps/details?id={PACKAGE}")


def the_long_campaign_stays_inside_the_page(page, screenshot) -> None:
    open_app_page(page, "Campaigns")
    expect(page.get_by_role("heading", name="Campaigns", exact=True)).to_be_visible()
    named = page.locator(f'[title="{CUT_CAMPAIGN}"]')
    expect(named).to_have_count(1)
    assert LONG_CAMPAIGN not in page.content()
    table = page.get_by_role("main").locator("table").filter(has=named)
    box = table.bounding_box()
    fits = box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]
    scrolls = table.evaluate("""table => {
        for (let box = table.parentElement; box && box !== document.body;
             box = box.parentElement) {
            const overflow = getComputedStyle(box).overflowX;
            if (overflow === "auto" || overflow === "scroll") return true;
        }
        return false;
    }""")
    assert fits or scrolls, f"the table is {box['width']:.0f} px wide and nothing scrolls it"
    assert not body_scrolls_sideways(page)
    screenshot("makerun-campaigns-long-name")


def open_every_page_of_the_app_nav(page, screenshot, *, app: str) -> None:
    nav = page.get_by_role("navigation", name=app)
    entries = [(link.inner_text(), link.get_attribute("href"))
               for link in nav.get_by_role("link").all()]
    assert len(entries) >= 14, entries
    for name, href in entries:
        answer = page.goto(href)
        assert answer.status == 200, (name, href, answer.status)
        current = nav.locator('[aria-current="page"]')
        expect(current).to_have_text(name)
        assert not body_scrolls_sideways(page), name
        slug = re.sub(r"[^a-z0-9]+", "-", f"{app} {name}".lower()).strip("-")
        screenshot(f"makerun-{slug}")


def the_docs_a_page_mentions_open_from_this_machine(page, screenshot) -> None:
    open_app_page(page, "SKAdNetwork", app="Runner iOS")
    with page.expect_response(re.compile(r"/console/docs/apple\.md$")) as answer:
        page.get_by_role("link", name="docs/apple.md").first.click()
    assert answer.value.status == 200
    assert answer.value.headers["content-type"] == "text/html; charset=utf-8"
    title = (BASE_DIR / "docs" / "apple.md").read_text().splitlines()[0].lstrip("# ")
    expect(page.get_by_role("heading", level=1)).to_have_text(title)  # rendered, not Markdown
    expect(page.get_by_role("heading", name="Setting it up")).to_be_visible()
    screenshot("makerun-docs-apple")


def download_every_export(page) -> None:
    """Each export is a CSV of its header and the one row of each kind sent (amounts are
    compared as numbers: the database decides how many decimals they print with)."""
    open_app_page(page, "Exports")
    for label, header, expected in (
            ("Installs CSV", INSTALL_HEADER, {"device_id": DEVICE, "campaign_id": CUT_CAMPAIGN}),
            ("Events CSV", EVENT_HEADER, {"device_id": DEVICE, "event_name": "purchase",
                                          "revenue_amount": Decimal("4.99")}),
            ("Revenue events CSV", REVENUE_HEADER, {"device_id": DEVICE, "currency": "USD",
                                                    "amount": Decimal("4.99")})):
        with page.expect_download() as download:
            page.get_by_role("link", name=label, exact=True).click()
        assert download.value.failure() is None, label
        assert download.value.suggested_filename.endswith(".csv"), label
        rows = list(csv.reader(io.StringIO(download.value.path().read_text())))
        assert rows[0] == header, label
        assert len(rows) == 2, (label, rows)
        row = dict(zip(header, rows[1], strict=True))
        got = {name: type(value)(row[name]) for name, value in expected.items()}
        assert got == expected, (label, row)


def a_webhook_test_reaches_the_local_receiver_signed(page, receiver, screenshot) -> None:
    open_app_page(page, "Postbacks & webhooks")
    page.get_by_role("link", name="New webhook").click()
    page.get_by_label("Webhook URL").fill(receiver.url("/hooks/attribution"))
    page.get_by_role("checkbox", name="install", exact=True).check()
    page.get_by_role("button", name="Create webhook").click()
    expect(page.get_by_role("heading", name="Webhook created")).to_be_visible()
    secret = page.get_by_label("Signing secret").input_value()
    page.get_by_role("link", name="Back to postbacks & webhooks").click()
    row = page.get_by_role("row").filter(has_text=receiver.url("/hooks/attribution"))
    row.get_by_role("button", name="Send a test").click()
    expect(page.get_by_role("status")).to_have_text("Delivered: the receiver answered 200.")
    screenshot("makerun-webhook-test")
    [sent] = receiver.wait_for(1)
    assert sent.method == "POST" and sent.path == "/hooks/attribution"
    assert StandardWebhook(secret).verify(sent.body, sent.headers)["test"] is True


def the_sdk_page_shows_the_app_id_and_the_key_prefix(page, screenshot, app_id, key) -> None:
    open_app_page(page, "SDK set-up")
    expect(page.get_by_role("heading", name="SDK set-up", exact=True)).to_be_visible()
    expect(page.get_by_label("App id")).to_have_value(app_id)
    expect(page.get_by_text("Use the key")).to_contain_text(key[:len("ak_") + 12])
    assert key not in page.content()
    # The key signs its requests (made so above): the code shows the signing step.
    expect(page.get_by_text("It signs its requests, so the code below signs each one")
           ).to_be_visible()
    screenshot("makerun-sdk-setup")


def a_missing_rate_is_said_once_and_added_from_the_console(page, screenshot) -> None:
    """A purchase in EUR with no EUR rate: the overview says so once, its link leads to the
    rates page, a pasted rates CSV is previewed and applied, and the overview converts it."""
    open_app_page(page, "Overview")
    notice = page.locator(".notice.unconverted")
    expect(notice).to_have_count(1)
    expect(notice).to_contain_text("EUR")
    page.get_by_role("link", name="Add the missing exchange rates").click()
    expect(page.get_by_role("heading", name="Upload a rates CSV")).to_be_visible()
    today = datetime.now(UTC).date().isoformat()
    page.get_by_label("Or paste the CSV text").fill(
        f"date,currency,units_per_usd\n{today},EUR,0.8\n")
    page.get_by_role("button", name="Check the file").click()
    expect(page.get_by_role("heading", name="Rates preview")).to_be_visible()
    screenshot("makerun-rates-preview")
    page.get_by_role("button", name="Apply 1 rate").click()
    screenshot("makerun-rates")
    open_app_page(page, "Overview")
    expect(page.locator(".notice.unconverted")).to_have_count(0)
    expect(tile(page, "Revenue")).to_contain_text("17.49 USD")  # 4.99 + 10 EUR / 0.8


def the_api_docs_render_with_the_outside_world_blocked(page, screenshot) -> None:
    blocked, errors = [], []

    def only_this_machine(route) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    page.route("**/*", only_this_machine)
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.goto("/api/docs/")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Install attribution API")
    expect(page.locator(".swagger-ui .opblock").first).to_be_visible()
    page.wait_for_load_state("networkidle")
    screenshot("makerun-api-docs")
    assert blocked == [] and errors == [], (blocked, errors)
    page.unroute("**/*")
