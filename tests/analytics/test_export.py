"""CSV exports: streamed attachments, parsed back with the csv module and compared."""

import csv
import io
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.text import slugify

from tests.analytics.helpers import at, event, install
from tests.tracking.helpers import sdk  # noqa: F401 - the fixture, shared

pytestmark = pytest.mark.django_db


def export(client, scenario, kind, **extra):
    response = client.get("/api/v1/analytics/export", {**scenario.range, "type": kind, **extra})
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    body = b"".join(response.streaming_content).decode()
    return response, list(csv.reader(io.StringIO(body, newline="")))


def iso(moment):
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def test_installs_export_has_one_row_per_install_oldest_first(owner_api, scenario):
    response, rows = export(owner_api, scenario, "installs")
    slug = slugify(scenario.app.name)  # "App 7" -> "app-7"
    assert response["Content-Disposition"] == (
        f'attachment; filename="{slug}-installs-{scenario.day1}-to-{scenario.day3}.csv"')
    assert rows[0] == ["install_id", "installed_at", "device_id", "platform", "match_type",
                       "confidence", "is_organic", "media_source", "campaign_id", "adset",
                       "ad", "click_id", "attributed_touch_time", "sdk_version", "os_version",
                       "device_model", "gdpr_applies", "ad_user_data", "ad_personalization",
                       "platform_metadata", "fraud_status", "fraud_reasons", "counted"]
    expected = []
    for key in ("B", "C", "A", "E", "F", "D"):
        i = scenario.installs[key]
        expected.append([
            str(i.id), iso(i.installed_at), i.device_id, "android", i.match_type,
            "0.0" if i.is_organic else "100.0", "true" if i.is_organic else "false",
            i.media_source or "", i.campaign_id or "", "", "", str(i.click_id or ""),
            iso(i.attributed_touch_time) if i.attributed_touch_time else "", "1.0.0", "", "",
            "", "", "",  # no consent was ever sent: unknown
            "",  # no platform's referrer attributed it
            "clean", "", "true"])  # no fraud rule found anything: it counts
    assert rows[1:] == expected
    assert rows[1][1].endswith("T09:00:00.000Z")


def test_revenue_export_converts_each_amount_and_leaves_unknown_currencies_blank(
        owner_api, scenario):
    _response, rows = export(owner_api, scenario, "revenue")
    assert rows[0] == ["event_id", "occurred_at", "event_name", "device_id", "install_id",
                       "source_type", "media_source", "campaign_id", "amount", "currency",
                       "report_currency", "amount_in_report_currency", "fraud_status",
                       "fraud_reasons", "counted"]
    a, b, c, d = (str(scenario.installs[k].id) for k in "ABCD")
    day1, day3 = scenario.day1, scenario.day3
    # event ids are database ids: compare everything else
    clean = ["clean", "", "true"]
    assert [row[1:] for row in rows[1:]] == [
        [iso(at(day1, 9, 30)), "purchase", "dev-B", b, "paid", "google", "g_c1", "4.000000",
         "EUR", "USD", "5.000000", *clean],
        [iso(at(day1, 11)), "purchase", "dev-C", c, "organic", "", "", "2.500000", "USD",
         "USD", "2.500000", *clean],
        [iso(at(day1, 13)), "purchase", "dev-A", a, "paid", "facebook", "fb_c1", "10.000000",
         "USD", "USD", "10.000000", *clean],
        [iso(at(day3, 10)), "purchase", "dev-A", a, "paid", "facebook", "fb_c1", "8.000000",
         "EUR", "USD", "8.888889", *clean],
        [iso(at(day3, 11)), "refund", "dev-A", a, "paid", "facebook", "fb_c1", "-10.000000",
         "USD", "USD", "-10.000000", *clean],
        [iso(at(day3, 12)), "purchase", "dev-C", c, "organic", "", "", "100.000000", "BRL",
         "USD", "", *clean],
        [iso(at(day3, 16)), "purchase", "dev-D", d, "paid", "facebook", "fb_c2", "20.000000",
         "USD", "USD", "20.000000", *clean],
        [iso(at(day3, 17)), "purchase", "ghost", "", "no_install", "", "", "3.000000", "USD",
         "USD", "3.000000", "", "", "true"],  # no install: no status, and it counts
    ]
    assert all(row[0].isdigit() for row in rows[1:])


def test_events_export_keeps_properties_as_json_and_quotes_properly(owner_api, app, scenario):
    tricky = install(app, at(scenario.day2, 12), "dev, \"quoted\"\nnewline")
    event(app, at(scenario.day2, 13), tricky.device_id, "=HYPERLINK(\"x\")",
          install_row=tricky)
    _response, rows = export(owner_api, scenario, "events", start_date=str(scenario.day2),
                             end_date=str(scenario.day2))
    assert rows[0] == ["event_id", "client_event_id", "occurred_at", "received_at",
                       "event_name", "device_id", "install_id", "session_id",
                       "revenue_amount", "revenue_currency", "properties", "fraud_status",
                       "fraud_reasons", "counted"]
    assert len(rows) == 2
    row = rows[1]
    assert row[2:7] == [iso(at(scenario.day2, 13)), iso(at(scenario.day2, 13, 0) +
                                                          timedelta(seconds=5)),
                        "'=HYPERLINK(\"x\")", "dev, \"quoted\"\nnewline", str(tricky.id)]
    assert uuid.UUID(row[7])
    assert row[8:] == ["", "", "{}", "clean", "", "true"]


def test_events_export_lists_every_event_of_the_range(owner_api, scenario):
    _response, rows = export(owner_api, scenario, "events")
    assert len(rows) == 1 + 9  # the purchase after the range is left out
    assert [r[4] for r in rows[1:]].count("refund") == 1
    occurred = [r[2] for r in rows[1:]]
    assert occurred == sorted(occurred)


def test_an_empty_range_is_just_the_header(owner_api, scenario):
    _response, rows = export(owner_api, scenario, "installs", start_date=str(scenario.day2),
                             end_date=str(scenario.day2))
    assert len(rows) == 1 and rows[0][0] == "install_id"


def test_export_ignores_an_accept_header_asking_for_csv(owner_api, scenario):
    response = owner_api.get("/api/v1/analytics/export", {**scenario.range, "type": "installs"},
                             HTTP_ACCEPT="text/csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"


def test_a_large_export_arrives_in_several_blocks(owner_api, app, scenario):
    from tracking.reporting import demo_load

    rows = [(uuid.uuid4(), app.id, f"bulk-{n}", "android", "1.0.0",
             at(scenario.day2, 0) + timedelta(seconds=n), "organic", True) for n in range(3000)]
    demo_load.bulk_load(table="installs", columns=(
        "id", "app_id", "device_id", "platform", "sdk_version", "installed_at", "match_type",
        "is_organic"), rows=rows)
    response = owner_api.get("/api/v1/analytics/export", {
        **scenario.range, "type": "installs", "start_date": str(scenario.day2),
        "end_date": str(scenario.day2)})
    blocks = list(response.streaming_content)
    assert len(blocks) > 2
    parsed = list(csv.reader(io.StringIO(b"".join(blocks).decode(), newline="")))
    assert [r[2] for r in parsed[1:]] == [f"bulk-{n}" for n in range(3000)]



AMOUNTS = [("4.99", "4.990000"), ("50", "50.000000"), ("0.000001", "0.000001"),
           ("12.5", "12.500000")]


def amount_cells(client, scenario, day):
    days = {"start_date": str(day), "end_date": str(day)}
    _response, events = export(client, scenario, "events", **days)
    _response, revenue = export(client, scenario, "revenue", **days)
    return ([row[8] for row in events[1:]], [row[8] for row in revenue[1:]],
            [row[11] for row in revenue[1:]])


def test_amounts_print_with_six_decimals_on_every_database(owner_api, app, scenario):
    """docs/analytics.md, "Amounts in exports": the column's scale, the same text on SQLite
    (which hands back what it stored as REAL) and PostgreSQL (numeric(18, 6))."""
    buyer = install(app, at(scenario.day2, 12), "dev-amounts")
    for minute, (amount, _cell) in enumerate(AMOUNTS):
        event(app, at(scenario.day2, 13, minute), "dev-amounts", "purchase", install_row=buyer,
              amount=amount, currency="USD")
    cells = [cell for _amount, cell in AMOUNTS]
    assert amount_cells(owner_api, scenario, scenario.day2) == (cells, cells, cells)


def test_amounts_an_sdk_sent_as_json_numbers_print_the_same(
        owner_api, sdk, app, scenario):  # noqa: F811 - the imported fixture
    now = timezone.now()
    response = sdk.post("/api/v1/events", {
        "app_id": str(app.id), "sdk_version": "2.4.0", "device_id": "dev-json",
        "events": [{"event_name": "purchase", "session_id": str(uuid.uuid4()),
                    "timestamp": int(now.timestamp() * 1000) + n,
                    "properties": {"amount": float(amount), "currency": "USD"}}
                   for n, (amount, _cell) in enumerate(AMOUNTS)]}, format="json")
    assert response.status_code == 200, response.content
    cells = [cell for _amount, cell in AMOUNTS]
    assert amount_cells(owner_api, scenario, now.date()) == (cells, cells, cells)
