"""Operator commands: load_currency_rates, analytics_refresh and seed_demo."""

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from analytics.models import CampaignCost, CurrencyRate, DailyInstallStat, RollupDirtyDay
from tests.analytics.helpers import install
from tracking.models import ClickArchive, Event, Install

pytestmark = pytest.mark.django_db


def write(tmp_path, text):
    path = tmp_path / "rates.csv"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_load_currency_rates_inserts_then_replaces(tmp_path, capsys):
    path = write(tmp_path, "date,currency,units_per_usd\n2025-03-01,EUR,0.92\n"
                           "2025-03-01,gbp,0.79\n2025-03-02,EUR,0.9123456789\n")
    call_command("load_currency_rates", path)
    assert "Loaded 3 rates: 3 new, 0 replaced." in capsys.readouterr().out
    write(tmp_path, "date,currency,units_per_usd\n2025-03-01,EUR,0.95\n")
    call_command("load_currency_rates", path)
    assert "0 new, 1 replaced" in capsys.readouterr().out
    assert sorted(CurrencyRate.objects.values_list("currency", "day", "units_per_usd")) == [
        ("EUR", date(2025, 3, 1), Decimal("0.95")),
        ("EUR", date(2025, 3, 2), Decimal("0.9123456789")),
        ("GBP", date(2025, 3, 1), Decimal("0.79")),
    ]


@pytest.mark.parametrize("line,message", [
    ("2025-03-01,USD,1", "line 3: currency: USD is the pivot (always 1) and takes no rate"),
    ("2025-03-01,EURO,1", "line 3: currency: must be an ISO 4217 code"),
    ("2025-03-01,XYZ,1", "line 3: currency: must be an ISO 4217 code"),
    ("03/01/2025,EUR,1", "line 3: date: must be a date as YYYY-MM-DD"),
    ("2025-03-01,EUR,0", "line 3: units_per_usd: must be a positive number"),
    ("2025-03-01,EUR,-1", "line 3: units_per_usd: must be a positive number"),
    ("2025-03-01,EUR,abc", "line 3: units_per_usd: must be a positive number"),
    ("2025-03-01,EUR,NaN", "line 3: units_per_usd: must be a positive number"),
    ("2025-03-01,EUR,1\n2025-03-01,EUR,2", "line 4: repeats EUR on 2025-03-01 (line 3)"),
])
def test_load_currency_rates_refuses_a_bad_file_whole(tmp_path, line, message):
    path = write(tmp_path, f"date,currency,units_per_usd\n2025-02-01,GBP,0.8\n{line}\n")
    with pytest.raises(CommandError) as error:
        call_command("load_currency_rates", path)
    assert message in str(error.value)
    assert "Nothing was loaded." in str(error.value)
    assert not CurrencyRate.objects.exists()


@pytest.mark.django_db(transaction=True)  # a refresh sees its own transaction's rows at once
def test_analytics_refresh_picks_up_new_data(app, capsys):
    install(app, timezone.now() - timedelta(days=2), "a")
    call_command("analytics_refresh")  # the first refresh rebuilds every day there is
    assert "Added 0 new rows, queued 3 days, rebuilt 3, 0 pending." in capsys.readouterr().out
    install(app, timezone.now(), "b")
    call_command("analytics_refresh")
    assert "Added 1 new rows, queued 0 days, rebuilt 0, 0 pending." in capsys.readouterr().out
    assert DailyInstallStat.objects.filter(app=app).count() == 2


def test_analytics_refresh_rebuilds_one_app(app, capsys):
    day = timezone.now().date() - timedelta(days=5)
    install(app, timezone.now() - timedelta(days=5), "a")
    call_command("analytics_refresh", "--app", str(app.id), "--start", str(day),
                 "--end", str(day))
    out = capsys.readouterr().out
    assert "Rebuilding rollups (days)" in out and "100%" in out
    assert DailyInstallStat.objects.get(app=app).day == day
    assert not RollupDirtyDay.objects.exists()


@pytest.mark.parametrize("args,message", [
    (["--start", "2025-01-01"], "--start and --end need --app"),
    (["--app", "nope"], "not an app id"),
    (["--app", "00000000-0000-4000-8000-000000000000", "--start", "x"], "not a date"),
    (["--app", "00000000-0000-4000-8000-000000000000", "--start", "2025-02-01", "--end",
      "2025-01-01"], "--end is before --start"),
])
def test_analytics_refresh_checks_its_options(args, message):
    with pytest.raises(CommandError, match=message):
        call_command("analytics_refresh", *args)


def test_analytics_refresh_refuses_an_app_that_does_not_exist():
    with pytest.raises(CommandError, match="no app 00000000-0000-4000-8000-000000000000"):
        call_command("analytics_refresh", "--app", "00000000-0000-4000-8000-000000000000")


def test_seed_demo_creates_a_demo_app_with_consistent_figures(capsys, api):
    call_command("seed_demo", "--installs", "300", "--events", "3000", "--clicks", "1000",
                 "--days", "10", "--seed", "3")
    out = capsys.readouterr().out
    assert "Created user demo@example.com (password demo-password)" in out
    assert "Loaded 300 installs, 1,000 clicks, 3,000 events" in out
    assert "rollups [" in out and "Demo app ready" in out
    app_id = out.rsplit("Demo app ready: ", 1)[1].strip()
    assert Install.objects.filter(app_id=app_id).count() == 300
    assert ClickArchive.objects.filter(app_id=app_id).count() == 1000
    assert Event.objects.filter(app_id=app_id).count() == 3000
    assert CampaignCost.objects.filter(app_id=app_id).exists()
    assert CurrencyRate.objects.filter(currency="EUR").count() == 11

    login = api.post("/api/v1/auth/login", {"email": "demo@example.com",
                                            "password": "demo-password"}, format="json")
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {login.json()['data']['token']}")
    today = timezone.now().date()
    params = {"app_id": app_id, "start_date": str(today - timedelta(days=20)),
              "end_date": str(today)}
    kpis = api.get("/api/v1/analytics/dashboard", params).json()["data"]["kpis"]
    assert kpis["total_installs"] == 300
    assert kpis["paid_installs"] + kpis["organic_installs"] == 300
    assert kpis["total_clicks"] == 1000  # touchpoints start up to 7 days before installs
    credited = api.get("/api/v1/analytics/attribution", {**params, "model": "linear"}).json()
    assert credited["data"]["credited_installs"] == kpis["paid_installs"]

    # a second run reuses the demo user and app, and appends
    call_command("seed_demo", "--installs", "10", "--events", "10", "--clicks", "10",
                 "--days", "2", "--skip-rollups")
    assert f"Demo app ready: {app_id}" in capsys.readouterr().out
    assert Install.objects.filter(app_id=app_id).count() == 310


def test_seed_demo_fills_a_given_app(app, capsys):
    call_command("seed_demo", "--installs", "20", "--events", "50", "--clicks", "5",
                 "--days", "3", "--app-id", str(app.id))
    assert f"Demo app ready: {app.id}" in capsys.readouterr().out
    assert Install.objects.filter(app=app).count() == 20
    # fewer clicks than touchpoints: the paid installs share the 5 clicks
    assert ClickArchive.objects.filter(app=app).count() == 5


@pytest.mark.parametrize("args,message", [
    (["--app-id", "nope"], "not an app id"),
    (["--app-id", "00000000-0000-4000-8000-000000000000"], "no app"),
    (["--days", "0"], "--days must be at least 1"),
])
def test_seed_demo_checks_its_options(args, message):
    with pytest.raises(CommandError, match=message):
        call_command("seed_demo", *args)
