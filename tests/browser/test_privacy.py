"""An admin answers an erasure request in a real browser, against the service as the README
runs it: filed on the app's privacy page, run by the README's worker, shown completed with
the rows it blanked, and the install search no longer finds the device; and one whose run keeps
failing shows why, then failed."""

import re

import pytest
from django.db import connection
from django.utils import timezone

from privacy import policy, services
from privacy.models import RequestRun, SubjectRequest
from tests.browser.helpers import stored
from tests.browser.steps import (
    api_create_app,
    api_create_key,
    api_sign_up,
    expect,
    log_in,
    open_app_page,
    reload_until,
    send_click,
    send_install,
)
from tracking.models import Install

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]

DEVICE = "7e1f0c2b-3a4d-4e5f-8a9b-0c1d2e3f4a5b"


def test_an_erasure_filed_in_the_console_completes_and_the_device_is_gone(
        page, service, screenshot, troubles):
    account = api_sign_up(service, email="dpo@example.com", company="Acme")
    app_id = api_create_app(service, account.token, name="Runner", package="com.acme.runner")
    key = api_create_key(service, account.token, app_id)
    send_click(service, app_id, device_id=DEVICE, pid="facebook", c="summer")
    assert send_install(service, key, app_id, device_id=DEVICE).status_code == 201
    log_in(page, account)
    page.goto(f"/console/apps/{app_id}/installs?q={DEVICE}")
    expect(page.get_by_role("main")).to_contain_text("facebook")

    open_app_page(page, "Privacy requests")
    expect(page.get_by_text("No privacy requests yet.")).to_be_visible()
    page.get_by_label("Request type").select_option("erasure")
    page.get_by_label("Identity type").select_option("android_advertising_id")
    page.get_by_label("Identity", exact=True).fill(DEVICE.upper())
    page.get_by_role("button", name="File request").click()
    expect(page.get_by_role("heading", name="Erasure request")).to_be_visible()
    state = page.locator("#request-state")
    reload_until(page, lambda: state.inner_text() == "Completed", what="the erasure to run")
    expect(page.get_by_role("cell", name="Installs", exact=True)).to_be_visible()
    expect(page.get_by_text("tracking_install")).to_have_count(0)  # the console speaks words
    assert DEVICE not in page.content()
    screenshot("privacy-request")

    page.goto(f"/console/apps/{app_id}/installs?q={DEVICE}")
    expect(page.get_by_role("main")).not_to_contain_text("facebook")
    assert troubles.none()


REFUSE_INSTALL_UPDATES = """
CREATE FUNCTION test_installs_locked() RETURNS trigger AS $$
BEGIN RAISE EXCEPTION 'tracking_install is locked for maintenance'; END
$$ LANGUAGE plpgsql;
CREATE TRIGGER test_installs_locked BEFORE UPDATE ON tracking_install
FOR EACH ROW EXECUTE FUNCTION test_installs_locked();
"""
ALLOW_INSTALL_UPDATES = ("DROP TRIGGER test_installs_locked ON tracking_install; "
                         "DROP FUNCTION test_installs_locked()")


def execute(sql: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql)


def remaining_tries() -> None:
    """The retries' delays (minutes, then hours) pass at once: what the worker then does."""
    request_id = SubjectRequest.objects.get().id
    for _ in range(policy.RUN_MAX_ATTEMPTS - 1):
        RequestRun.objects.update(next_attempt_at=timezone.now())
        services.request_run(request_id=request_id)


def test_an_erasure_whose_run_keeps_failing_shows_why_then_failed(
        page, service, screenshot, troubles):
    """The installs table refuses every update (a trigger, as a long maintenance would): the
    README's worker tries the erasure, which rolls back; the page says why, in words; after
    the retry policy's last try the request is failed and nothing was erased."""
    account = api_sign_up(service, email="dpo@example.com", company="Acme")
    app_id = api_create_app(service, account.token, name="Runner", package="com.acme.runner")
    key = api_create_key(service, account.token, app_id)
    assert send_install(service, key, app_id, device_id=DEVICE).status_code == 201
    stored(lambda: execute(REFUSE_INSTALL_UPDATES))
    try:
        log_in(page, account)
        page.goto(f"/console/apps/{app_id}/privacy")
        page.get_by_label("Identity", exact=True).fill(DEVICE)
        page.get_by_role("button", name="File request").click()
        error = page.locator("#request-error")
        reload_until(page, lambda: error.count() == 1, what="the worker's first try")
        expect(page.locator("#request-state")).to_have_text("In Progress")
        expect(error).to_have_text(re.compile(  # the class is the database driver's
            r"^The run stopped with an error: \w+: tracking_install is locked for maintenance$"))
        expect(page.locator("#request-retrying")).to_be_visible()
        stored(remaining_tries)
    finally:
        stored(lambda: execute(ALLOW_INSTALL_UPDATES))
    page.reload()
    expect(page.locator("#request-state")).to_have_text("Failed")
    expect(page.locator("#request-tries")).to_have_text(str(policy.RUN_MAX_ATTEMPTS))
    expect(page.locator("#request-failed")).to_contain_text("nothing was erased")
    expect(page.get_by_role("button", name="Cancel this request")).to_have_count(0)
    screenshot("privacy-request-failed")
    assert stored(lambda: Install.objects.get().device_id) == DEVICE
    assert troubles.none()
