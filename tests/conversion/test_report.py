"""GET /api/v1/analytics/skan on hand-made postback rows: per day of arrival, window, network
and source identifier; values decoded through the schema version active when each postback
arrived; the analytics endpoints' parameter rules; another organization's app is a 404."""

from __future__ import annotations

import copy
from datetime import UTC, date, datetime
from decimal import Decimal
from itertools import count

import pytest

from analytics.models import CurrencyRate
from attribution_site.currencies import ISO_4217
from conversion import selectors, services, values
from skan.models import AdNetwork, AppAdNetworkName, Postback
from tests.conversion.samples import SCHEMA
from tests.factories import AppFactory

pytestmark = pytest.mark.django_db

META = "v9wttpbfk9.skadnetwork"
TIKTOK = "22mmun2rn5.skadnetwork"
_transactions = count(1)


def at(day: int, hour: int = 12) -> datetime:
    return datetime(2025, 3, day, hour, tzinfo=UTC)


def postback(app, *, received_at, window=0, network=META, source="1234", fine=None,
             coarse="", **fields) -> Postback:
    values_ = {"app": app, "framework": "skadnetwork", "version": "4.0",
               "ad_network_id": network, "transaction_id": f"t-{next(_transactions)}",
               "postback_sequence_index": window, "source_identifier": source,
               "fine_value": fine, "coarse_value": coarse, "did_win": True,
               "redownload": False, "raw_body": "{}", "verdict": "verified",
               "received_at": received_at}
    values_.update(fields)
    return Postback.objects.create(**values_)


def version(app, raw, created_at):
    return services.schema_version_create(
        app_id=app.id, schema=values.schema_parse(raw, currencies=ISO_4217), now=created_at)


def report(client, app, start="2025-03-01", end="2025-03-31"):
    return client.get("/api/v1/analytics/skan",
                      {"app_id": str(app.id), "start_date": start, "end_date": end})


@pytest.fixture
def named(app):
    # skan's migration seeds the common networks; these names are the tests' own either way
    AdNetwork.objects.update_or_create(network_id=META, defaults={"name": "meta"})
    AdNetwork.objects.update_or_create(network_id=TIKTOK, defaults={"name": "tiktok"})


def test_postbacks_are_counted_per_day_window_network_and_source(owner_api, app, named):
    version(app, SCHEMA, at(1, 0))
    postback(app, received_at=at(3), fine=20)
    postback(app, received_at=at(3, 18), fine=63, redownload=True)
    postback(app, received_at=at(3), coarse="high")  # low crowd anonymity: coarse only
    postback(app, received_at=at(3))  # null value
    postback(app, received_at=at(3), fine=7)  # no rule gives 7
    postback(app, received_at=at(3), window=1, coarse="medium")
    postback(app, received_at=at(4), fine=0, source="99")
    postback(app, received_at=at(4), network=TIKTOK.upper(), fine=40)

    response = report(owner_api, app)
    assert response.status_code == 200
    data = response.json()["data"]
    assert (data["app_id"], data["currency"], data["timezone"]) == (str(app.id), "USD", "UTC")
    keys = [(r["date"], r["window"], r["media_source"], r["source_identifier"])
            for r in data["rows"]]
    assert keys == [("2025-03-03", 0, "meta", "1234"), ("2025-03-03", 1, "meta", "1234"),
                    ("2025-03-04", 0, "meta", "99"), ("2025-03-04", 0, "tiktok", "1234")]
    first = data["rows"][0]
    assert first == {
        "date": "2025-03-03", "window": 0, "media_source": "meta", "ad_network_id": META,
        "source_identifier": "1234", "postbacks": 5, "installs": 5, "null_values": 1,
        "null_value_share": 20.0,
        "fine_values": [{"value": 7, "postbacks": 1}, {"value": 20, "postbacks": 1},
                        {"value": 63, "postbacks": 1}],
        "coarse_values": {"low": 0, "medium": 0, "high": 1},
        "decoded": 3, "undecoded": 1,
        # fine 20: (0.01 + 5) / 2; fine 63: its floor 20; coarse high: the least valuable
        # high rule, [5, 20) -> 12.5
        "estimated_revenue": 35.01, "unconverted_estimated_revenue": [], "redownloads": 1}
    second = data["rows"][1]
    assert (second["postbacks"], second["installs"], second["estimated_revenue"]) == (1, 0,
                                                                                      5.01)
    assert data["rows"][3]["estimated_revenue"] == 12.5


def test_installs_are_winning_first_window_postbacks_only(owner_api, app, named):
    postback(app, received_at=at(3))
    postback(app, received_at=at(3), did_win=None, version="2.2")  # before 3.0: all winners
    postback(app, received_at=at(3), did_win=False)
    postback(app, received_at=at(3), framework="adattributionkit",
             conversion_type="re-engagement")
    postback(app, received_at=at(3), window=2)
    rows = report(owner_api, app).json()["data"]["rows"]
    assert [(r["window"], r["postbacks"], r["installs"]) for r in rows] == [(0, 4, 2),
                                                                            (2, 1, 0)]


def test_a_new_version_does_not_change_how_older_postbacks_decode(owner_api, app, named):
    version(app, SCHEMA, at(1, 0))
    postback(app, received_at=at(3), fine=20)
    before = report(owner_api, app).json()["data"]["rows"][0]["estimated_revenue"]

    richer = copy.deepcopy(SCHEMA)  # v2 on the 5th: fine 20 now means [100, 200)
    richer["windows"][0]["rules"][2].update(min_revenue=100, max_revenue=200)
    richer["windows"][0]["rules"][3].update(min_revenue=200, max_revenue=300)
    richer["windows"][0]["rules"][4].update(min_revenue=300)
    version(app, richer, at(5, 0))
    postback(app, received_at=at(6), fine=20)

    rows = report(owner_api, app).json()["data"]["rows"]
    assert [(r["date"], r["estimated_revenue"]) for r in rows] == [("2025-03-03", before),
                                                                   ("2025-03-06", 150.0)]
    assert before == 2.51  # 2.505, rounded half up once, at the end


def test_postbacks_before_any_schema_are_counted_but_not_decoded(owner_api, app, named):
    postback(app, received_at=at(3), fine=20)
    version(app, SCHEMA, at(4, 0))
    row = report(owner_api, app).json()["data"]["rows"][0]
    assert (row["postbacks"], row["decoded"], row["undecoded"],
            row["estimated_revenue"]) == (1, 0, 1, 0.0)


def test_estimated_revenue_is_in_the_report_currency(owner_api, app, named):
    eur = copy.deepcopy(SCHEMA)
    eur["currency"] = "EUR"
    version(app, eur, at(1, 0))
    CurrencyRate.objects.create(currency="EUR", day=date(2025, 3, 1),
                                units_per_usd=Decimal("0.5"))
    postback(app, received_at=at(3), fine=63)  # 20 EUR = 40 USD
    assert report(owner_api, app).json()["data"]["rows"][0]["estimated_revenue"] == 40.0

    gbp = copy.deepcopy(SCHEMA)
    gbp["currency"] = "GBP"  # no rate at all: kept apart, never dropped
    version(app, gbp, at(5, 0))
    postback(app, received_at=at(6), fine=63)
    row = report(owner_api, app).json()["data"]["rows"][1]
    assert (row["estimated_revenue"], row["unconverted_estimated_revenue"]) == (
        0.0, [{"currency": "GBP", "amount": 20.0}])


def test_networks_take_the_apps_own_name_and_unknown_ones_show_their_id(owner_api, app,
                                                                        named):
    AppAdNetworkName.objects.create(app=app, network_id=META, name="facebook")
    postback(app, received_at=at(3))
    postback(app, received_at=at(3), network="unknown.skadnetwork")
    rows = report(owner_api, app).json()["data"]["rows"]
    assert [r["media_source"] for r in rows] == ["facebook", "unknown.skadnetwork"]


def test_only_the_range_and_the_app_are_read(owner_api, app, named):
    other = AppFactory(organization=app.organization)
    postback(app, received_at=datetime(2025, 2, 28, 23, 59, 59, tzinfo=UTC))
    postback(app, received_at=datetime(2025, 3, 1, 0, 0, tzinfo=UTC))
    postback(app, received_at=datetime(2025, 3, 2, 23, 59, 59, tzinfo=UTC))
    postback(app, received_at=datetime(2025, 3, 3, 0, 0, tzinfo=UTC))
    postback(other, received_at=at(2))
    rows = report(owner_api, app, "2025-03-01", "2025-03-02").json()["data"]["rows"]
    assert [(r["date"], r["postbacks"]) for r in rows] == [("2025-03-01", 1), ("2025-03-02", 1)]


def test_an_app_without_postbacks_has_no_rows(owner_api, app):
    response = report(owner_api, app)
    assert response.status_code == 200
    assert response.json()["data"]["rows"] == []


@pytest.mark.parametrize(("params", "field"), [
    ({"app_id": None}, "app_id"),
    ({"app_id": "nope"}, "app_id"),
    ({"start_date": "March"}, "start_date"),
    ({"start_date": "2025-03-31", "end_date": "2025-03-01"}, "end_date"),
    ({"start_date": "2024-01-01", "end_date": "2025-03-01"}, "end_date"),
    ({"start_date": None}, "start_date"),
])
def test_bad_parameters_are_a_400_naming_them(owner_api, app, params, field):
    query = {"app_id": str(app.id), "start_date": "2025-03-01", "end_date": "2025-03-31",
             **params}
    query = {name: value for name, value in query.items() if value is not None}
    response = owner_api.get("/api/v1/analytics/skan", query)
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]


def test_another_organizations_app_is_a_404(outsider_api, app, named):
    postback(app, received_at=at(3))
    response = report(outsider_api, app)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


def test_the_report_reads_postbacks_through_the_apps_arrival_index(app, named):
    """The selector's one query is bounded by app and arrival time, skan's (app, received_at)
    index; on PostgreSQL its plan uses that index."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    postback(app, received_at=at(1))
    with CaptureQueriesContext(connection) as captured:
        arrived = selectors.postbacks_arrived(app_id=app.id, start=date(2025, 3, 1),
                                              end=date(2025, 3, 1))
    assert len(arrived) == 1
    (query,) = [q["sql"] for q in captured.captured_queries if "skan_postback" in q["sql"]]
    assert "received_at" in query and "app_id" in query
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("EXPLAIN " + query)
            plan = " ".join(row[0] for row in cursor.fetchall())
        assert "skan_postba" in plan and "Index" in plan
