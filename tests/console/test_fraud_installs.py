"""The install explorer says what the fraud rules did: the list shows each install's verdict
in words with a filter by it, an install's page says which click a rule refused, by which rule
and value, and what happened instead (read from the trail the API answers), and a flood the
decision saw only part of is counted in full. Each test sets the rules it needs."""

from __future__ import annotations

import html
import re
from datetime import datetime

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from fraud import services as fraud_services
from tests.console.helpers import XSS_SOURCE
from tests.fraud.helpers import click, install
from tracking.models import Install
from tracking.sql import MAX_DEVICE_CANDIDATES

pytestmark = pytest.mark.django_db


@pytest.fixture
def sdk(sdk_key):
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=sdk_key)
    return client


def rules(app, **modes):
    """The app's rules for the test: every click rule named, so no default decides."""
    fraud_services.settings_update(app_id=app.id, changes={
        "ctit_anomalies_mode": "off", "too_many_engagements_mode": "off",
        "engagement_injection_mode": "off", "click_flood_mode": "off", **modes})


def text_of(response) -> str:
    """The page's words: tags dropped, entities read, spaces joined."""
    assert response.status_code == 200
    words = re.sub(r"<[^>]+>", " ", html.unescape(response.content.decode()))
    return re.sub(r"\s+", " ", words)


def at(clicked: datetime, row: Install) -> str:
    """A click's time as the trail says it: with its date when not the install's UTC day."""
    return f"{clicked:%H:%M}" if clicked.date() == row.installed_at.date() else (
        f"{clicked:%Y-%m-%d %H:%M}")


def install_page(console, app, row):
    return console.get(reverse("console:install-detail", args=[app.id, row.id]))


def list_page(console, app, **params):
    return console.get(reverse("console:installs", args=[app.id]), params)


# --- The list --------------------------------------------------------------------------------

def test_a_blocked_install_is_listed_with_its_verdict_and_the_claim_refused(console, sdk, app):
    rules(app, ctit_anomalies_mode="block", ctit_floor_seconds=10)
    click(app, seconds_ago=3, source="hijacker", campaign="c9")
    install(sdk, app)
    seconds = Install.objects.get().fraud_reasons[0]["value"]
    text = text_of(list_page(console, app))
    assert f"Blocked: click to install in {seconds} s (install hijacking)" in text
    assert "organic (refused: hijacker / c9)" in text


def test_a_flagged_install_is_listed_as_flagged_and_credited(console, sdk, app):
    rules(app, ctit_anomalies_mode="flag")
    click(app, seconds_ago=3, source="quick")
    install(sdk, app)
    text = text_of(list_page(console, app))
    assert "quick / summer" in text and "Flagged: click to install in" in text
    assert "(install hijacking)" in text


def test_the_filter_keeps_the_installs_of_a_status(console, sdk, app):
    rules(app, ctit_anomalies_mode="block")
    click(app, seconds_ago=3, source="hijacker", device="gaid-blocked")
    install(sdk, app, device="gaid-blocked")
    click(app, seconds_ago=600, source="honest", device="gaid-clean")
    install(sdk, app, device="gaid-clean")

    blocked = text_of(list_page(console, app, fraud="blocked"))
    assert "gaid-blocked" in blocked and "gaid-clean" not in blocked
    assert "Blocked: latest installs" in blocked
    clean = text_of(list_page(console, app, fraud="clean"))
    assert "gaid-clean" in clean and "gaid-blocked" not in clean
    either = text_of(list_page(console, app, fraud="any"))
    assert "gaid-blocked" in either and "gaid-clean" not in either
    assert "No flagged installs." in text_of(list_page(console, app, fraud="flagged"))
    everything = text_of(list_page(console, app, fraud="nonsense"))
    assert "gaid-blocked" in everything and "gaid-clean" in everything


def test_the_filter_looks_through_a_bounded_number_of_installs_a_page(console, sdk, app,
                                                                      monkeypatch):
    from tracking import selectors

    monkeypatch.setattr(selectors, "FILTER_SCAN", 2)  # a speed knob: three installs suffice
    rules(app, ctit_anomalies_mode="block")
    click(app, seconds_ago=3, source="hijacker", device="gaid-old-blocked")
    install(sdk, app, device="gaid-old-blocked")
    for device in ("gaid-clean-1", "gaid-clean-2"):
        click(app, seconds_ago=600, source="honest", device=device)
        install(sdk, app, device=device)

    first = list_page(console, app, fraud="blocked")
    text = text_of(first)
    assert "gaid-old-blocked" not in text and "Looked through installs back to" in text
    after = re.search(r'\?after=([^"&]+)&amp;fraud=blocked" rel="next"',
                      first.content.decode()).group(1)
    second = text_of(list_page(console, app, fraud="blocked", after=html.unescape(after)))
    assert "gaid-old-blocked" in second


def test_a_hostile_refused_source_is_listed_as_text(console, sdk, app):
    rules(app, ctit_anomalies_mode="block")
    click(app, seconds_ago=3, source=XSS_SOURCE)
    install(sdk, app)
    page = list_page(console, app).content.decode()
    assert "<img src=x onerror=alert(2)>" not in page
    assert "&lt;img src=x onerror=alert(2)&gt;" in page


# --- An install's page -----------------------------------------------------------------------

def test_a_refused_device_click_is_said_found_and_refused_not_missing(console, sdk, app, api,
                                                                      owner):
    rules(app, ctit_anomalies_mode="block", ctit_floor_seconds=10)
    click(app, seconds_ago=3, source="hijacker")
    install(sdk, app)
    row = Install.objects.get()
    seconds = row.fraud_reasons[0]["value"]
    clicked = datetime.fromisoformat(row.decision["fraud"]["refused"]["clicked_at"])
    text = text_of(install_page(console, app, row))
    assert "No click with this device id" not in text
    refusal = f"click {seconds} s before install: below the 10 s floor (install hijacking)"
    assert (f"Blocked: found the click of {at(clicked, row)} from hijacker / summer with this "
            f"device id and refused it ({refusal}); no other click qualified, so the install "
            "was credited to no one (answered organic).") in text
    assert (f"Device id : Found the click of {at(clicked, row)} from hijacker / summer with this "
            f"device id and refused it ({refusal}).") in text

    # The page reads the facts the API's install detail answers, not a computation of its own.
    api.force_authenticate(owner)
    decision = api.get(f"/api/v1/installs/{row.id}").json()["data"]["install"]["decision"]
    device_step = next(s for s in decision["steps"] if s["method"] == "device_id")
    assert device_step["outcome"] == "every click of this device refused by a fraud rule"
    assert device_step["refused"]["clicks"] == 1
    assert decision["fraud"]["refused"]["method"] == "device_id"
    refused = next(c for c in decision["candidates"] if c["method"] == "fraud")
    assert (refused["reason"], refused["value"]) == ("ctit_anomalies", seconds)


def test_a_refused_click_that_lost_to_an_honest_one_says_who_was_credited(console, sdk, app):
    rules(app, ctit_anomalies_mode="block")
    click(app, seconds_ago=600, source="honest")
    click(app, seconds_ago=3, source="hijacker")
    install(sdk, app)
    row = Install.objects.get()
    assert (row.fraud_status, row.media_source) == ("flagged", "honest")
    text = text_of(install_page(console, app, row))
    assert "Credited and flagged: found the click of" in text
    assert "from hijacker / summer with this device id and refused it" in text
    assert "and the click above was credited instead." in text
    assert ("Also found: 1 click with this device id that a fraud rule refused (the click of "
            in text)


def test_a_flag_mode_rule_says_the_install_was_credited_and_flagged_and_why(console, sdk, app):
    rules(app, ctit_anomalies_mode="flag", ctit_floor_seconds=10)
    click(app, seconds_ago=3, source="quick")
    install(sdk, app)
    row = Install.objects.get()
    text = text_of(install_page(console, app, row))
    seconds = row.fraud_reasons[0]["value"]
    assert (f"by device id. Credited and flagged: click {seconds} s before install: below the "
            "10 s floor (install hijacking).") in text
    assert "Flagged: credited, and marked for review." in text


def test_a_flood_the_decision_saw_part_of_is_counted_in_full(console, sdk, app):
    rules(app, too_many_engagements_mode="block", too_many_engagements_per_hour=5)
    for n in range(50):
        click(app, seconds_ago=600 + n * 10, source="spammer")
    install(sdk, app)
    row = Install.objects.get()
    assert row.fraud_reasons == [{"reason": "too_many_engagements",
                                  "value": MAX_DEVICE_CANDIDATES, "sub_reason": "at_least"}]
    text = text_of(install_page(console, app, row))
    assert (f"50 clicks from this device for this source within an hour in the click records "
            f"(the decision read {MAX_DEVICE_CANDIDATES} of them)") in text
    assert (f"This device has 50 clicks in the window in the click records; the decision read "
            f"its {MAX_DEVICE_CANDIDATES} most recent") in text
    listed = text_of(list_page(console, app))
    assert f"Blocked: at least {MAX_DEVICE_CANDIDATES} clicks from one device" in listed


def test_a_device_with_few_clicks_is_not_counted_again(console, sdk, app):
    from tracking import selectors

    rules(app, too_many_engagements_mode="block", too_many_engagements_per_hour=2)
    for n in range(4):
        click(app, seconds_ago=600 + n * 10, source="spammer")
    install(sdk, app)
    row = Install.objects.get()
    assert row.fraud_reasons[0] == {"reason": "too_many_engagements", "value": 4,
                                    "sub_reason": ""}
    assert selectors.device_clicks_of_window(
        app_id=app.id, device_id=row.device_id, installed_at=row.installed_at,
        clicks_listed=4) is None
    text = text_of(install_page(console, app, row))
    assert "4 clicks from this device for this source within an hour (limit 2)" in text
    assert "in the click records" not in text


def test_an_install_rule_block_says_which_match_was_not_credited(console, sdk, app):
    rules(app, anonymous_traffic_mode="block", listed_networks=["127.0.0.0/8"])
    click(app, seconds_ago=600, source="honest")
    install(sdk, app)  # the test client's address, 127.0.0.1
    row = Install.objects.get()
    assert (row.fraud_status, row.is_organic) == ("blocked", True)
    clicked = datetime.fromisoformat(row.decision["fraud"]["refused"]["clicked_at"])
    text = text_of(install_page(console, app, row))
    assert (f"Blocked: the install came from a listed network; its match by device id with the "
            f"click of {at(clicked, row)} from honest / summer was not credited: the install was "
            "credited to no one (answered organic).") in text
    assert "Blocked: from a listed network (anonymous traffic)" in text_of(list_page(console, app))
