"""The console's exchange rates: everyone logged in sees them; the editors that
CURRENCY_RATES_EDITORS names upload a rates CSV (checked and previewed, then applied all or
nothing, read as `manage.py load_currency_rates` reads it) or add one rate; reports convert with
a new rate at once; a report says "no rate" once per page."""

from __future__ import annotations

import html
import os
import subprocess
import sys
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from analytics import rollups
from analytics.models import CurrencyRate
from console.rate_editors import may_edit_rates
from tests.analytics.helpers import at, build_scenario, event, install
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

HEADER = "date,currency,units_per_usd\n"


def url(app, name="rates"):
    return reverse(f"console:{name}", args=[app.id])


def upload(client, app, text: str):
    return client.post(url(app), {"file": SimpleUploadedFile("rates.csv", text.encode(),
                                                             content_type="text/csv")})


def stored():
    return sorted((r.currency, r.day.isoformat(), r.units_per_usd)
                  for r in CurrencyRate.objects.all())


def logged_in(client, user):
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


@pytest.fixture
def viewer(owner):
    return UserFactory(organization=owner.organization, role=User.Role.VIEWER)


@pytest.fixture
def staff(owner):
    return UserFactory(organization=owner.organization, role=User.Role.VIEWER, is_staff=True)


# --- Who may edit -----------------------------------------------------------------------------

@pytest.mark.parametrize("editors,role,is_staff,allowed", [
    ("admins", "admin", False, True),
    ("admins", "developer", False, True),
    ("admins", "marketer", False, True),
    ("admins", "viewer", False, False),
    ("admins", "viewer", True, True),
    ("staff", "admin", False, False),
    ("staff", "viewer", True, True),
])
def test_who_may_edit_rates_follows_the_setting(editors, role, is_staff, allowed):
    assert may_edit_rates(editors=editors, role=role, is_staff=is_staff) is allowed


def test_an_unknown_editors_setting_stops_start_up():
    env = {**os.environ, "CURRENCY_RATES_EDITORS": "everyone",
           "DJANGO_SETTINGS_MODULE": "attribution_site.settings"}
    done = subprocess.run([sys.executable, "-c", "import django; django.setup()"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "CURRENCY_RATES_EDITORS must be one of ADMINS, STAFF, got 'everyone'" in done.stderr


@pytest.mark.parametrize("editors,who,allowed", [
    ("admins", "owner", True), ("admins", "viewer", False), ("admins", "staff", True),
    ("staff", "owner", False), ("staff", "viewer", False), ("staff", "staff", True),
])
def test_everyone_sees_the_rates_and_only_editors_change_them(
        client, app, owner, viewer, staff, settings, editors, who, allowed):
    settings.CURRENCY_RATES_EDITORS = editors
    user = {"owner": owner, "viewer": viewer, "staff": staff}[who]
    CurrencyRate.objects.create(currency="EUR", day=timezone.now().date(),
                                units_per_usd=Decimal("0.9"))
    logged_in(client, user)
    page = client.get(url(app))
    assert page.status_code == 200
    body = page.content.decode()
    assert '<th scope="row">EUR</th>' in body
    assert (url(app, "rate-edit") in body) is allowed
    assert ("may change them" in body) is not allowed
    edit = client.post(url(app, "rate-edit"),
                       {"date": "2025-03-01", "currency": "JPY", "units_per_usd": "150"})
    uploaded = upload(client, app, HEADER + "2025-03-01,GBP,0.79\n")
    applied = client.post(url(app, "rates-apply"), {"text": HEADER + "2025-03-01,GBP,0.79\n"})
    if allowed:
        assert (edit.status_code, uploaded.status_code, applied.status_code) == (302, 200, 302)
        assert {r[0] for r in stored()} == {"EUR", "GBP", "JPY"}
    else:
        assert (edit.status_code, uploaded.status_code, applied.status_code) == (403, 403, 403)
        assert "may change exchange rates. Nothing was changed." in edit.content.decode()
        assert {r[0] for r in stored()} == {"EUR"}


def test_the_rates_page_needs_a_login(client, app):
    response = client.get(url(app))
    assert response.status_code == 302 and "/console/login" in response["Location"]


# --- Upload: preview, then apply ----------------------------------------------------------------

def test_a_valid_file_is_previewed_then_applied_as_the_command_would(console, app):
    text = "\ufeff" + HEADER + "2025-03-01,eur,0.92\n2025-03-02,JPY,149.85\n"
    preview = upload(console, app, text)
    assert preview.status_code == 200
    body = preview.content.decode()
    assert "All 2 rows are valid (EUR, JPY)" in body
    assert not CurrencyRate.objects.exists()
    hidden = body.split('<input type="hidden" name="text" value="', 1)[1].split('"', 1)[0]
    applied = console.post(url(app, "rates-apply"), {"text": html.unescape(hidden)}, follow=True)
    assert "Loaded 2 rates: 2 new, 0 replaced." in applied.content.decode()
    assert stored() == [("EUR", "2025-03-01", Decimal("0.92")),
                        ("JPY", "2025-03-02", Decimal("149.85"))]

    again = console.post(url(app, "rates-apply"), {"text": HEADER + "2025-03-01,EUR,0.93\n"},
                         follow=True)
    assert "Loaded 1 rate: 0 new, 1 replaced." in again.content.decode()
    assert stored()[0] == ("EUR", "2025-03-01", Decimal("0.93"))


def test_bad_lines_are_listed_by_line_and_nothing_is_loaded(console, app):
    response = upload(console, app, HEADER + "2025-03-01,EUR,0.92\n"
                                             "2025-02-30,EUR,0.9\n"
                                             "2025-03-01,USD,1\n"
                                             "2025-03-01,XYZ,-2\n"
                                             "2025-03-01,eur,0.95\n")
    assert response.status_code == 400
    body = response.content.decode()
    assert "4 of 5 rows need a fix" in body
    for line, message in [
            (3, "date: must be a date as YYYY-MM-DD"),
            (4, "currency: USD is the pivot (always 1) and takes no rate"),
            (5, "currency: must be an ISO 4217 code such as EUR"),
            (5, "units_per_usd: must be a positive number with at most 10 decimals"),
            (6, "repeats EUR on 2025-03-01 (line 2)")]:
        assert f'<th scope="row" class="num">{line}</th>' in body
        assert f"<li>{message}</li>" in body
    assert '<th scope="row" class="num">2</th>' not in body
    assert url(app, "rates-apply") not in body
    applied = console.post(url(app, "rates-apply"), {"text": HEADER + "2025-02-30,EUR,1\n"})
    assert applied.status_code == 400
    assert not CurrencyRate.objects.exists()


@pytest.mark.parametrize("text,message", [
    ("date,currency\n2025-03-01,EUR\n", "Header: missing column(s) units_per_usd"),
    (HEADER, "The file has a header but no rows."),
    (HEADER + "2025-03-01,EUR,0.9,extra\n", "Line 2: more cells than header columns."),
])
def test_a_file_that_is_not_a_rates_csv_says_why(console, app, text, message):
    response = upload(console, app, text)
    assert response.status_code == 400
    body = response.content.decode()
    assert "The file cannot be read as a rates CSV." in body and message in body
    assert not CurrencyRate.objects.exists()


def test_an_empty_upload_is_refused_on_the_page(console, app):
    response = console.post(url(app), {"text": "  "})
    assert response.status_code == 400
    assert "Choose a CSV file or paste its text." in response.content.decode()


# --- One rate -----------------------------------------------------------------------------------

def test_one_rate_is_added_then_replaced_and_shown_in_its_history(console, app):
    response = console.post(url(app, "rate-edit"),
                            {"date": "2025-03-01", "currency": " eur ", "units_per_usd": "0.92"})
    assert response.status_code == 302
    assert response["Location"] == f"{url(app)}?currency=EUR"
    console.post(url(app, "rate-edit"),
                 {"date": "2025-03-05", "currency": "EUR", "units_per_usd": "0.9"})
    page = console.post(url(app, "rate-edit"),
                        {"date": "2025-03-01", "currency": "EUR", "units_per_usd": "0.91"},
                        follow=True).content.decode()
    assert "Replaced the rate of EUR on 2025-03-01: 1 USD = 0.91 EUR." in page
    assert stored() == [("EUR", "2025-03-01", Decimal("0.91")),
                        ("EUR", "2025-03-05", Decimal("0.9"))]
    history = page.split('id="history-heading"', 1)[1]
    assert history.index("2025-03-05") < history.index("2025-03-01")
    assert "edit_date=2025-03-01&amp;edit_currency=EUR&amp;edit_units_per_usd=0.91" in history
    console.post(url(app, "rate-edit"),
                 {"date": "2025-03-01", "currency": "JPY", "units_per_usd": "150.00"})
    page = console.get(url(app)).content.decode()
    latest = page.split('id="latest-heading"', 1)[1].split("</table>", 1)[0]
    assert '<th scope="row">JPY</th><td>2025-03-01</td><td class="num">150</td>' in latest
    assert ('<th scope="row">EUR</th><td>2025-03-05</td><td class="num">0.9</td>'
            '<td class="num">2</td><td>2025-03-01</td>') in latest


def test_a_bad_rate_is_shown_beside_its_fields_and_kept_in_the_form(console, app):
    response = console.post(url(app, "rate-edit"),
                            {"date": "01/03/2025", "currency": "USD", "units_per_usd": "0"})
    assert response.status_code == 400
    body = response.content.decode()
    assert "must be a date as YYYY-MM-DD" in body
    assert "USD is the pivot (always 1) and takes no rate" in body
    assert "must be a positive number with at most 10 decimals" in body
    assert 'value="01/03/2025"' in body
    assert not CurrencyRate.objects.exists()


# --- Reports use the rates, and say "no rate" once ----------------------------------------------

def test_a_report_converts_eur_once_its_rate_is_added_in_the_console(console, app):
    day = timezone.now().date() - timedelta(days=2)
    buyer = install(app, at(day, 9), "dev-eur")
    event(app, at(day, 10), "dev-eur", "purchase", install_row=buyer, amount="10.00",
          currency="EUR")
    rollups.rebuild_app(app_id=app.id)
    overview = url(app, "overview")
    query = {"range": "custom", "start": day.isoformat(), "end": day.isoformat()}
    before = console.get(overview, query).content.decode()
    assert '<dt class="label">Revenue</dt><dd class="value">0.00 USD</dd>' in before
    assert "<li><strong>EUR</strong>: Revenue 10.00</li>" in before
    assert f'<a href="{url(app)}">Add the missing exchange rates</a>' in before

    console.post(url(app, "rate-edit"),
                 {"date": day.isoformat(), "currency": "EUR", "units_per_usd": "0.8"})
    after = console.get(overview, query).content.decode()
    assert '<dt class="label">Revenue</dt><dd class="value">12.50 USD</dd>' in after
    assert 'class="notice unconverted"' not in after


@pytest.mark.parametrize("name,currency", [("overview", "BRL"), ("sources", "BRL"),
                                           ("campaigns", "JPY"), ("revenue", "BRL")])
def test_each_report_says_no_rate_once_per_page(console, app, name, currency):
    scenario = build_scenario(app)  # 100 BRL of revenue and 5 JPY of cost, neither with a rate
    body = console.get(url(app, name), {"range": "custom", "start": scenario.day1.isoformat(),
                                        "end": scenario.day3.isoformat()}).content.decode()
    assert body.count('class="notice unconverted"') == 1
    assert body.count("for want of an exchange rate into USD") == 1
    assert f"<strong>{currency}</strong>" in body


def test_a_viewer_is_told_where_the_rates_are_without_the_edit_link(client, app, viewer):
    scenario = build_scenario(app)
    body = logged_in(client, viewer).get(url(app, "overview"), {
        "range": "custom", "start": scenario.day1.isoformat(),
        "end": scenario.day3.isoformat()}).content.decode()
    assert body.count('class="notice unconverted"') == 1
    assert "Add the missing exchange rates" not in body
    assert f'<a href="{url(app)}">rates page</a>' in body


def test_the_costs_page_links_to_the_rates(console, app):
    assert f'href="{url(app)}"' in console.get(url(app, "costs")).content.decode()
