"""The console's install page says what the fraud rules decided, in plain words, and lists a
refused click among the clicks that lost, as text."""

import html

import pytest

from tests.fraud.helpers import click, install
from tracking.models import Install

pytestmark = pytest.mark.django_db


@pytest.fixture
def console(client, owner):
    client.force_login(owner, backend="django.contrib.auth.backends.ModelBackend")
    return client


def test_a_blocked_hijack_is_explained_on_the_install_page(console, sdk, app, timing_rules_block):
    click(app, seconds_ago=3, source="<b>hijacker</b>")
    install(sdk, app)
    row = Install.objects.get()
    seconds = row.fraud_reasons[0]["value"]
    page = console.get(f"/console/apps/{app.id}/installs/{row.id}").content.decode()
    text = html.unescape(page)
    assert "Blocked: not credited to any source" in text
    assert f"Click {seconds} s before install: below the 10 s floor (install hijacking)." in text
    assert f"Not eligible: click {seconds} s before install" in text
    assert f"Blocked: click to install in {seconds} s (install hijacking)" in text
    assert f"(codes: ctit_anomalies {seconds})" in text
    assert "<b>hijacker</b>" not in page  # a network's value is shown as text
    assert "&lt;b&gt;hijacker&lt;/b&gt;" in page


def test_a_clean_install_page_has_no_fraud_section(console, sdk, app):
    click(app, seconds_ago=600)
    install(sdk, app)
    page = console.get(f"/console/apps/{app.id}/installs/{Install.objects.get().id}")
    assert "Fraud rules" not in page.content.decode()
