"""What a user does, as steps the browser tests share: in the console through its labelled
fields and named buttons, and on the API the way the README's curl flow does it (the SDK's
clicks and installs, an account made elsewhere)."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import requests

from tests.browser.helpers import Service

try:
    from playwright.sync_api import expect

    expect.set_options(timeout=10_000)
except ImportError:  # the `browser` marker skips these tests (an error with REQUIRE_SERVICES=1)
    expect = None

PASSWORD = "long-enough-password"
APP_URL = re.compile(r"/console/apps/(?P<app_id>[0-9a-f-]{36})/")


@dataclass
class Account:
    email: str
    password: str
    token: str = ""


# --- In the console -----------------------------------------------------------------------------

def sign_up(page, *, name: str, email: str, company: str, password: str = PASSWORD) -> Account:
    page.goto("/console/signup")
    page.get_by_label("Your name").fill(name)
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_label("Company").fill(company)
    page.get_by_role("button", name="Sign up").click()
    return Account(email=email, password=password)


def log_in(page, account: Account) -> None:
    page.goto("/console/login")
    page.get_by_label("Email").fill(account.email)
    page.get_by_label("Password").fill(account.password)
    page.get_by_role("button", name="Log in").click()


def create_android_app(page, *, name: str, package: str) -> str:
    """Create the app through the form; returns its id, read from the page it leads to."""
    page.goto("/console/apps/new")
    page.get_by_role("textbox", name="Name", exact=True).fill(name)
    page.get_by_role("radio", name="Android").check()
    page.get_by_label("Package name (Android)").fill(package)
    page.get_by_label("Play Store URL").fill(
        f"https://play.google.com/store/apps/details?id={package}")
    page.get_by_role("button", name="Create app").click()
    page.wait_for_url(APP_URL)
    return APP_URL.search(page.url)["app_id"]


def open_app_page(page, name: str, *, app: str = "Runner") -> None:
    """Follow an entry of the app's navigation (Overview, Sources, ..., Settings)."""
    page.get_by_role("navigation", name=app).get_by_role("link", name=name, exact=True).click()


def open_menu(page, name: str):
    """Open a menu of the top bar ("Organization", or the person's own under their email);
    returns it, to find its entries in."""
    menu = page.get_by_role("navigation", name="Account").locator("details").filter(
        has=page.locator("summary", has_text=name))
    menu.locator("summary").click()
    return menu


def tile(page, label: str):
    """A KPI tile (its label and its value): the first text of the page's main part that
    reads `label` (the tiles come before the daily table, whose header says it again)."""
    return page.get_by_role("main").get_by_text(label, exact=True).first.locator("xpath=..")


def reload_until(page, condition: Callable[[], bool], *, timeout: float = 20.0,
                 what: str = "the page to show it") -> None:
    """Reload the page until `condition()` holds (figures beat refreshes every 2 s)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout:.0f} s for {what}"
        time.sleep(0.5)
        page.reload()


def body_scrolls_sideways(page) -> bool:
    return page.evaluate(
        "document.documentElement.scrollWidth > document.documentElement.clientWidth")


# --- On the API, as the README's curl flow ------------------------------------------------------

def api_sign_up(service: Service, *, email: str, company: str,
                password: str = PASSWORD) -> Account:
    answer = requests.post(service.api("auth/signup"), json={
        "email": email, "password": password, "name": company + " admin",
        "company_name": company}, timeout=10)
    assert answer.status_code == 201, answer.text
    return Account(email=email, password=password, token=answer.json()["data"]["token"])


def api_token(service: Service, account: Account) -> str:
    answer = requests.post(service.api("auth/login"), json={
        "email": account.email, "password": account.password}, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]["token"]


def api_create_app(service: Service, token: str, *, name: str, package: str) -> str:
    answer = requests.post(service.api("apps"), headers={"Authorization": f"Bearer {token}"},
                           json={"name": name, "platform": "android", "package_name": package,
                                 "play_store_url": "https://play.google.com/store/apps/"
                                                   f"details?id={package}"}, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()["data"]["app"]["id"]


def api_create_key(service: Service, token: str, app_id: str) -> str:
    answer = requests.post(service.api(f"apps/{app_id}/keys"),
                           headers={"Authorization": f"Bearer {token}"},
                           json={"name": "android sdk"}, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()["data"]["key"]["full_key"]


def send_click(service: Service, app_id: str, *, device_id: str, pid: str, c: str,
               **more: str) -> requests.Response:
    """An ad click, as a phone's browser follows a tracking link: answered with a redirect."""
    answer = requests.get(service.api("clicks"), params={
        "app_id": app_id, "pid": pid, "c": c, "advertising_id": device_id, **more},
        headers={"User-Agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile"},
        allow_redirects=False, timeout=10)
    assert answer.status_code == 302, answer.text
    return answer


def send_install(service: Service, key: str, app_id: str, *,
                 device_id: str) -> requests.Response:
    """The SDK reports the install (the answer is returned as it is: it may be a refusal)."""
    return requests.post(service.api("installs"), headers={"X-API-Key": key}, json={
        "app_id": app_id, "platform": "android", "sdk_version": "1.0", "device_id": device_id},
        timeout=10)


def send_purchase(service: Service, key: str, app_id: str, *, device_id: str,
                  amount: float, currency: str = "USD") -> None:
    answer = requests.post(service.api("events"), headers={"X-API-Key": key}, json={
        "app_id": app_id, "sdk_version": "1.0", "device_id": device_id,
        "events": [{"event_name": "purchase",
                    "properties": {"amount": amount, "currency": currency},
                    "timestamp": int(time.time() * 1000), "session_id": str(uuid.uuid4())}]},
        timeout=10)
    assert answer.status_code == 200 and answer.json()["data"]["accepted"] == 1, answer.text
