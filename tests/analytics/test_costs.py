"""Ad cost import: POST /api/v1/costs and `manage.py import_costs`, idempotent per (app, date,
media source, campaign)."""

from datetime import date
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from analytics.models import CampaignCost

pytestmark = pytest.mark.django_db

COSTS = "/api/v1/costs"
DROP = object()  # leave the key out of the body


def row(**overrides):
    values = {"date": "2025-03-01", "media_source": "facebook", "campaign_id": "c1",
              "cost": "12.50", "currency": "USD"}
    values.update(overrides)
    return {k: v for k, v in values.items() if v is not None}


def stored(app):
    return sorted((c.day.isoformat(), c.media_source, c.campaign_id, c.cost, c.currency)
                  for c in CampaignCost.objects.filter(app=app))


def test_owner_imports_cost_rows(owner_api, app):
    response = owner_api.post(COSTS, {"app_id": str(app.id), "rows": [
        row(), row(campaign_id="c2", cost=7, currency="eur"),
        row(media_source="google", campaign_id=None, cost="0.333333")]}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json() == {"success": True,
                               "data": {"rows": 3, "created": 3, "updated": 0,
                                        "shadowed": 0, "shadowed_rows": []}}
    assert stored(app) == [
        ("2025-03-01", "facebook", "c1", Decimal("12.5"), "USD"),
        ("2025-03-01", "facebook", "c2", Decimal("7"), "EUR"),
        ("2025-03-01", "google", "", Decimal("0.333333"), "USD"),
    ]


def test_a_corrected_import_replaces_the_old_figures(owner_api, app):
    owner_api.post(COSTS, {"app_id": str(app.id), "rows": [row(), row(campaign_id="c2")]},
                   format="json")
    response = owner_api.post(COSTS, {"app_id": str(app.id), "rows": [
        row(cost="10.00", currency="GBP"), row(date="2025-03-02")]}, format="json")
    assert response.json()["data"] == {"rows": 2, "created": 1, "updated": 1, "shadowed": 0,
                                       "shadowed_rows": []}
    assert stored(app) == [
        ("2025-03-01", "facebook", "c1", Decimal("10"), "GBP"),
        ("2025-03-01", "facebook", "c2", Decimal("12.5"), "USD"),
        ("2025-03-02", "facebook", "c1", Decimal("12.5"), "USD"),
    ]
    again = owner_api.post(COSTS, {"app_id": str(app.id), "rows": [
        row(cost="10.00", currency="GBP"), row(date="2025-03-02")]}, format="json")
    assert again.json()["data"] == {"rows": 2, "created": 0, "updated": 2, "shadowed": 0,
                                    "shadowed_rows": []}
    assert CampaignCost.objects.count() == 3


@pytest.mark.parametrize("body,field", [
    ({"app_id": DROP, "rows": [row()]}, "app_id"),
    ({"app_id": None, "rows": [row()]}, "app_id"),
    ({"app_id": 5, "rows": [row()]}, "app_id"),
    ({"app_id": "nope", "rows": [row()]}, "app_id"),
    ({"rows": []}, "rows"),
    ({"rows": "x"}, "rows"),
    ({"rows": [row(date="2025-02-30")]}, "rows"),
    ({"rows": [row(date="2025-03-01T00:00:00Z")]}, "rows"),
    ({"rows": [row(cost="-1")]}, "rows"),
    ({"rows": [row(cost="abc")]}, "rows"),
    ({"rows": [row(cost=True)]}, "rows"),
    ({"rows": [row(cost="1.0000001")]}, "rows"),
    ({"rows": [row(currency="dollars")]}, "rows"),
    ({"rows": [row(media_source=None)]}, "rows"),
    ({"rows": [row(media_source="  ")]}, "rows"),
    ({"rows": [row(colour="red")]}, "rows"),
    ({"rows": [row(), row(cost="3")]}, "rows"),
    ({"rows": [row()], "extra": 1}, "extra"),
])
def test_invalid_cost_rows_are_refused_and_nothing_is_stored(owner_api, app, body, field):
    body = {k: v for k, v in {"app_id": str(app.id), **body}.items() if v is not DROP}
    response = owner_api.post(COSTS, body, format="json")
    assert response.status_code == 400, response.json()
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert field in response.json()["error"]["details"]
    assert not CampaignCost.objects.exists()


def test_messages_name_the_row(owner_api, app):
    response = owner_api.post(COSTS, {"app_id": str(app.id), "rows": [
        row(), row(cost="-1"), row(campaign_id="c3")]}, format="json")
    assert response.json()["error"]["details"]["rows"] == [
        "1: cost: Ensure this value is greater than or equal to 0."]
    response = owner_api.post(COSTS, {"app_id": str(app.id), "rows": [
        row(), row(campaign_id="c2"), row()]}, format="json")
    assert response.json()["error"]["details"]["rows"] == [
        "Row 2 repeats the date, media_source and campaign_id of row 0."]


def test_too_many_rows_in_one_request(owner_api, app):
    rows = [row(date=date.fromordinal(730_000 + n).isoformat()) for n in range(10_001)]
    response = owner_api.post(COSTS, {"app_id": str(app.id), "rows": rows}, format="json")
    assert response.status_code == 400
    assert "rows" in response.json()["error"]["details"]


def test_costs_of_another_organizations_app_are_not_found(outsider_api, app):
    response = outsider_api.post(COSTS, {"app_id": str(app.id), "rows": [row()]},
                                 format="json")
    assert response.status_code == 404
    assert not CampaignCost.objects.exists()


def test_costs_need_a_token(api, app):
    assert api.post(COSTS, {"app_id": str(app.id), "rows": [row()]},
                    format="json").status_code == 401


# --- manage.py import_costs -------------------------------------------------------------------

def write(tmp_path, text):
    path = tmp_path / "costs.csv"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_import_costs_command_loads_a_file_with_progress(app, tmp_path, capsys):
    lines = ["date,media_source,campaign_id,cost,currency"]
    lines += [f"2025-03-{day:02d},google,g{n},{day}.{n}0,USD" for day in range(1, 31)
              for n in range(1, 51)]
    path = write(tmp_path, "\ufeff" + "\n".join(lines) + "\n")  # with a spreadsheet's BOM
    call_command("import_costs", str(app.id), path)
    out = capsys.readouterr().out
    assert "Importing 1,500 cost rows" in out
    assert "1,000/1,500 rows (66%)" in out and "1,500/1,500 rows (100%)" in out
    assert "Imported 1,500 rows: 1,500 new, 0 replaced." in out
    assert CampaignCost.objects.filter(app=app).count() == 1500
    assert CampaignCost.objects.get(app=app, day="2025-03-07", campaign_id="g3").cost == \
        Decimal("7.30")

    write(tmp_path, "date,media_source,campaign_id,cost,currency\n"
                    "2025-03-07,google,g3,1.00,EUR\n")
    call_command("import_costs", str(app.id), path)
    assert "0 new, 1 replaced" in capsys.readouterr().out
    assert CampaignCost.objects.get(app=app, day="2025-03-07", campaign_id="g3").cost == 1


def test_import_costs_without_a_campaign_column(app, tmp_path):
    path = write(tmp_path, "media_source,date,currency,cost\nfacebook,2025-03-01,usd,3\n")
    call_command("import_costs", str(app.id), path)
    assert stored(app) == [("2025-03-01", "facebook", "", Decimal("3"), "USD")]


@pytest.mark.parametrize("text,message", [
    ("date,media_source,cost\n", "header: missing column(s) currency"),
    ("date,media_source,cost,currency,spend\n", "unknown column(s) spend"),
    ("", "the file is empty"),
    ("date,media_source,cost,currency\n", "the file has a header but no rows"),
    ("date,media_source,cost,currency\n2025-03-01,fb,1,USD\n2025-13-01,fb,x,US\n",
     "line 3: date: Must be a date as YYYY-MM-DD."),
    ("date,media_source,cost,currency\n2025-03-01,fb,1,USD\n2025-03-01,fb,2,USD\n",
     "line 3: repeats the date, media_source and campaign_id of line 2"),
    ("date,media_source,cost,currency\n2025-03-01,fb,1,USD,extra\n",
     "line 2: more cells than header columns"),
])
def test_import_costs_refuses_a_bad_file_whole(app, tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(CommandError) as error:
        call_command("import_costs", str(app.id), path)
    assert message in str(error.value)
    assert not CampaignCost.objects.exists()


def test_import_costs_lists_every_bad_line(app, tmp_path):
    path = write(tmp_path, "date,media_source,cost,currency\n2025-03-01,,x,USD\n")
    with pytest.raises(CommandError) as error:
        call_command("import_costs", str(app.id), path)
    assert str(error.value).splitlines() == [
        "line 2: media_source: This field may not be blank.",
        "line 2: cost: A valid number is required.",
        "Nothing was imported."]


def test_import_costs_needs_an_existing_app_and_file(app, tmp_path):
    with pytest.raises(CommandError, match="not an app id"):
        call_command("import_costs", "nope", "x.csv")
    with pytest.raises(CommandError, match="no app"):
        call_command("import_costs", "00000000-0000-4000-8000-000000000000", "x.csv")
    with pytest.raises(CommandError, match="cannot read"):
        call_command("import_costs", str(app.id), str(tmp_path / "missing.csv"))


def test_a_cost_row_in_a_currency_that_does_not_exist_is_refused_naming_the_field(owner_api,
                                                                                   app):
    response = owner_api.post(COSTS, {"app_id": str(app.id), "rows": [
        row(), row(campaign_id="c2", currency="XYZ")]}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert error["details"] == {"rows": ["1: currency: Must be an ISO 4217 code such as USD."]}
    assert not CampaignCost.objects.exists()


def test_import_costs_refuses_a_currency_that_does_not_exist(app, tmp_path):
    path = write(tmp_path, "date,media_source,cost,currency\n2025-03-01,fb,1,XYZ\n")
    with pytest.raises(CommandError) as error:
        call_command("import_costs", str(app.id), path)
    assert str(error.value).splitlines() == [
        "line 2: currency: Must be an ISO 4217 code such as USD.", "Nothing was imported."]
    assert not CampaignCost.objects.exists()
