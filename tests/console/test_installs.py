"""The install explorer: search by device id or install id, the latest installs a keyset page at
a time, and one install's result, trail in words, losing clicks and re-engagements; scoped to
the owner's organization and app. Installs happen at the last noon (tests/clock.py), so the
hours before them are the same UTC day whenever the suite runs."""

from __future__ import annotations

from datetime import UTC, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.clock import last_noon
from tests.console.helpers import XSS_CAMPAIGN, XSS_SOURCE, assert_shown_as_text
from tests.factories import AppFactory
from tests.tracking.helpers import ANDROID_BROWSER, ANDROID_SDK, PUBLIC_IP
from tracking import services
from tracking.models import Install, Reengagement

pytestmark = pytest.mark.django_db


def record_click(app, *, at, source="facebook", campaign="summer", device=None):
    return services.click_record(click=services.ClickInput(
        app_id=app.id, campaign_id=campaign, media_source=source, adset="", ad="",
        advertising_id=device, ip=PUBLIC_IP, user_agent=ANDROID_BROWSER,
        accept_language="en-US", clicked_at=at))


def record_install(app, *, at, device=None, ip=PUBLIC_IP):
    return services.install_record(data=services.InstallReport(
        app_id=app.id, platform="android", sdk_version="2.4.0", device_id=device, ip=ip,
        user_agent=ANDROID_SDK), now=at)


def list_url(app):
    return f"/console/apps/{app.id}/installs"


def detail_url(app, install):
    return f"/console/apps/{app.id}/installs/{install.id}"


def test_the_explorer_lists_the_latest_installs_newest_first(console, app):
    now = last_noon()
    record_click(app, at=now - timedelta(minutes=30), device="gaid-paid")
    record_install(app, at=now - timedelta(minutes=20), device="gaid-paid")
    record_install(app, at=now - timedelta(minutes=10), device="gaid-organic", ip="10.0.0.1")
    response = console.get(list_url(app))
    assert response.status_code == 200
    html = response.content.decode()
    assert html.index("gaid-organic") < html.index("gaid-paid")
    assert "facebook / summer" in html and "Device id" in html
    assert "Older installs" not in html


def test_older_installs_come_a_page_at_a_time_without_counting(console, app, monkeypatch):
    monkeypatch.setattr("console.views.installs.PAGE_SIZE", 2)
    now = last_noon()
    for n in range(3):
        record_install(app, at=now - timedelta(minutes=n), device=f"gaid-{n}", ip="10.0.0.1")
    with CaptureQueriesContext(connection) as queries:
        first = console.get(list_url(app)).content.decode()
    install_reads = [q["sql"].upper() for q in queries if "TRACKING_INSTALL" in q["sql"].upper()]
    assert install_reads and not any("COUNT(" in sql for sql in install_reads)
    assert "gaid-0" in first and "gaid-1" in first and "gaid-2" not in first
    older = console.get(_next_link(first))
    html = older.content.decode()
    assert older.status_code == 200
    assert "gaid-2" in html and "gaid-0" not in html and "gaid-1" not in html
    assert 'rel="next"' not in html


def _next_link(html: str) -> str:
    marker = 'rel="next"'
    start = html.rindex('href="', 0, html.index(marker)) + len('href="')
    return html[start:html.index('"', start)].replace("&amp;", "&")


def test_installs_at_the_same_moment_are_paged_by_id_without_loss(console, app, monkeypatch):
    monkeypatch.setattr("console.views.installs.PAGE_SIZE", 2)
    moment = last_noon()
    for n in range(5):
        record_install(app, at=moment, device=f"same-{n}", ip="10.0.0.1")
    seen, url = [], list_url(app)
    while url:
        html = console.get(url).content.decode()
        seen += [i.device_id for i in Install.objects.all() if i.device_id in html]
        url = _next_link(html) if 'rel="next"' in html else None
    assert sorted(seen) == [f"same-{n}" for n in range(5)]


def test_a_bad_cursor_shows_the_first_page(console, app):
    record_install(app, at=last_noon(), device="gaid-1", ip="10.0.0.1")
    response = console.get(list_url(app), {"after": "not-a-cursor"})
    assert response.status_code == 200
    assert "gaid-1" in response.content.decode()


def test_an_install_id_of_this_app_opens_its_page(console, app):
    install = record_install(app, at=last_noon(), device="gaid-1").install
    response = console.get(list_url(app), {"q": f"  {install.id} "})
    assert response.status_code == 302
    assert response["Location"] == detail_url(app, install)


def test_a_device_id_is_found_lower_cased_and_stripped(console, app):
    record_install(app, at=last_noon(), device="ABCD-ef01", ip="10.0.0.1")
    response = console.get(list_url(app), {"q": " AbCd-EF01 "})
    assert response.status_code == 200
    html = response.content.decode()
    assert "<code>abcd-ef01</code>" in html
    assert 'value="AbCd-EF01"' in html


def test_an_unknown_device_id_says_none_was_found(console, app):
    record_install(app, at=last_noon(), device="gaid-1", ip="10.0.0.1")
    response = console.get(list_url(app), {"q": "nobody"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "No install of this app has device id <code>nobody</code>" in html
    assert "gaid-1" not in html


@pytest.mark.parametrize("query", ["gaid\x00", "x" * 65])
def test_a_device_id_no_install_can_have_finds_none(console, app, query):
    record_install(app, at=last_noon(), device="gaid-1", ip="10.0.0.1")
    response = console.get(list_url(app), {"q": query})
    assert response.status_code == 200
    assert "gaid-1" not in response.content.decode()


def test_an_install_id_of_another_app_is_not_found_by_search(console, app, owner):
    sibling = AppFactory(organization=owner.organization)
    other = record_install(sibling, at=last_noon(), device="gaid-1").install
    response = console.get(list_url(app), {"q": str(other.id)})
    assert response.status_code == 200
    assert "No install of this app has device id" in response.content.decode()


def test_another_organizations_app_is_a_404(console, outsider_app):
    install = record_install(outsider_app, at=last_noon(), device="gaid-1").install
    assert console.get(list_url(outsider_app)).status_code == 404
    assert console.get(detail_url(outsider_app, install)).status_code == 404


def test_another_organizations_install_under_this_app_is_a_404(console, app, outsider_app):
    install = record_install(outsider_app, at=last_noon(), device="gaid-1").install
    response = console.get(detail_url(app, install))
    assert response.status_code == 404
    assert "gaid-1" not in response.content.decode()


def test_another_apps_install_under_this_app_is_a_404(console, app, owner):
    sibling = AppFactory(organization=owner.organization)
    install = record_install(sibling, at=last_noon(), device="gaid-1").install
    assert console.get(detail_url(app, install)).status_code == 404
    assert console.get(detail_url(sibling, install)).status_code == 200


def test_the_explorer_asks_a_visitor_to_log_in(client, app):
    response = client.get(list_url(app))
    assert response.status_code == 302
    assert response["Location"].startswith("/console/login?next=")


def test_an_install_page_tells_its_trail_in_words_with_the_clicks_that_lost(console, app):
    now = last_noon()
    winner = now - timedelta(minutes=20)
    record_click(app, at=now - timedelta(hours=2), device="gaid-1", campaign="spring")
    record_click(app, at=winner, device="gaid-1")
    install = record_install(app, at=now, device="gaid-1").install
    response = console.get(detail_url(app, install))
    assert response.status_code == 200
    html = response.content.decode()
    assert (f"Matched the click of {winner.astimezone(UTC):%H:%M} from facebook / summer by "
            "device id." in html)
    assert "Not tried: the device id matched first." in html
    assert "same device id +100" in html
    assert "facebook / spring" in html
    assert "A later click of the same device won" in html


def test_an_organic_install_page_says_what_each_tier_found(console, app):
    install = record_install(app, at=last_noon(), device="gaid-1", ip="10.0.0.1").install
    html = console.get(detail_url(app, install)).content.decode()
    # 10.0.0.1 is private: never compared, which the page says instead of "no click there".
    assert ("Organic: no click with this device id; fingerprint: the install&#x27;s loopback, "
            "private or carrier-NAT address is never compared." in html)
    assert "None: no other click was considered." in html
    assert "None: this device has not come back through a later click." in html


def test_an_iphone_install_without_consent_says_the_fingerprint_tier_was_skipped(console, app):
    now = last_noon()
    record_click(app, at=now - timedelta(minutes=30))
    install = services.install_record(data=services.InstallReport(
        app_id=app.id, platform="ios", sdk_version="3.0.0", ip=PUBLIC_IP, att_status="denied",
        user_agent="MyApp/1.0 CFNetwork/1474 Darwin/23.0.0"), now=now).install
    html = console.get(detail_url(app, install)).content.decode()
    assert "Organic: no usable device id; fingerprint skipped: tracking not authorized." in html
    assert ("Skipped: tracking not authorized (the user denied tracking), and the app does not "
            "fingerprint iOS installs without consent, as Apple&#x27;s policy asks; 1 click "
            "from this install&#x27;s network was not compared.") in html


def test_an_install_without_a_trail_says_so(console, app):
    install = record_install(app, at=last_noon(), device="gaid-1", ip="10.0.0.1").install
    Install.objects.filter(id=install.id).update(decision={})
    html = console.get(detail_url(app, install)).content.decode()
    assert "No decision trail was stored with this install." in html


def test_an_install_page_lists_its_re_engagements(console, app):
    now = last_noon()
    install = record_install(app, at=now - timedelta(hours=3), device="gaid-1",
                             ip="10.0.0.1").install
    record_click(app, at=now - timedelta(hours=1), device="gaid-1", source="tiktok",
                 campaign="comeback")
    outcome = record_install(app, at=now, device="gaid-1", ip="10.0.0.1")
    assert outcome.reengagement is not None
    html = console.get(detail_url(app, install)).content.decode()
    assert "tiktok / comeback" in html
    assert str(Reengagement.objects.get().click_id) in html


def test_hostile_sources_and_campaigns_are_shown_as_text_everywhere(console, app):
    now = last_noon()
    record_click(app, at=now - timedelta(hours=1), device="gaid-x", source=XSS_SOURCE,
                 campaign="old")
    record_click(app, at=now - timedelta(minutes=5), device="gaid-x", source=XSS_SOURCE,
                 campaign=XSS_CAMPAIGN)
    install = record_install(app, at=now, device="gaid-x").install
    for url in (list_url(app), detail_url(app, install)):
        response = console.get(url)
        assert response.status_code == 200
        html = response.content.decode()
        assert_shown_as_text(html)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    search = console.get(list_url(app), {"q": XSS_CAMPAIGN})
    assert_shown_as_text(search.content.decode())


def test_the_install_page_lists_its_events_and_the_revenue_they_reported(console, app):
    import uuid
    from decimal import Decimal

    from tracking.models import Event

    install = record_install(app, at=last_noon() - timedelta(hours=1), device="gaid-1").install
    for minutes, name, amount, currency in [(10, "open", None, None),
                                            (20, "purchase", "4.99", "USD"),
                                            (30, "purchase", "2.00", "EUR"),
                                            (40, XSS_CAMPAIGN, "1.01", "USD")]:
        Event.objects.create(
            app=app, install=install, device_id="gaid-1", event_name=name, properties={},
            session_id=uuid.uuid4(),
            occurred_at=install.installed_at + timedelta(minutes=minutes),
            received_at=timezone.now(), event_id=f"e{minutes}",
            revenue_amount=None if amount is None else Decimal(amount),
            revenue_currency=currency)
    html = console.get(detail_url(app, install)).content.decode()
    assert ('Revenue reported: <span class="amount">2.00 EUR</span>, '
            '<span class="amount">6.00 USD</span>') in html
    section = html.split("<h2>Events and revenue</h2>", 1)[1]
    assert section.index("e40") < section.index("e30") < section.index("e20") < section.index(
        "e10")  # newest first
    assert '<td class="num">4.99 USD</td>' in section
    assert_shown_as_text(html)


def test_an_install_without_events_says_where_they_would_come_from(console, app):
    install = record_install(app, at=last_noon(), device="gaid-1").install
    html = console.get(detail_url(app, install)).content.decode()
    assert "None yet: events the app sends with this install's device id show here." in html
