"""The whole path (docs/export.md): a destination made on the API and pointed at the suite's S3
server receives every topic hour by hour through the outbox's runs, DuckDB reads the counts the API
reports, and a second run after more rows writes only those."""

from __future__ import annotations

import duckdb
import pytest

from raw_export import services
from tests.analytics.helpers import at, build_scenario, install
from tests.raw_export.helpers import create, s3_body

pytestmark = pytest.mark.django_db(transaction=True)

URL = "/api/v1/data-destinations"


def download(server, bucket, root):
    for key in server.keys(bucket):
        target = root / key
        target.parent.mkdir(parents=True, exist_ok=True)
        server.client().download_file(bucket, key, str(target))


def run_now(api, destination) -> dict:
    run = api.post(f"{URL}/{destination['id']}/runs").json()["data"]["run"]
    services.run_attempt(run_id=run["id"])
    [latest, *_] = api.get(f"{URL}/{destination['id']}/runs").json()["data"]["runs"]
    assert latest["id"] == run["id"] and latest["state"] == "succeeded", latest
    return latest


def test_a_bucket_receives_every_topic_hour_by_hour_and_duckdb_reads_the_apis_counts(
        owner_api, app, s3_server, s3_bucket, tmp_path):
    scenario = build_scenario(app)
    destination = create(owner_api, s3_body(s3_server, s3_bucket, prefix="lake"))
    first = run_now(owner_api, destination)

    keys = s3_server.keys(s3_bucket)
    hours = {key.rsplit("/", 1)[0] for key in keys}
    for hour in hours:  # every hour written has its parts and its _SUCCESS
        assert f"{hour}/_SUCCESS" in keys
        assert any(key.startswith(f"{hour}/part-00000-{first['id']}") for key in keys)
    assert {key.split("/")[1] for key in keys} >= {"t=installs", "t=inapps", "t=clicks"}

    download(s3_server, s3_bucket, tmp_path)
    report = owner_api.get("/api/v1/analytics/dashboard", scenario.range).json()["data"]
    by_day = {day["date"]: day["installs"] for day in report["timeSeries"]}
    glob = str(tmp_path / "lake" / "t=installs" / "*" / "*" / "*.parquet")
    per_day = dict(duckdb.sql(f"SELECT CAST(install_time AS DATE)::VARCHAR, count(*) "
                              f"FROM read_parquet('{glob}') GROUP BY 1").fetchall())
    for day in (scenario.day1.isoformat(), scenario.day3.isoformat()):
        assert per_day[day] == by_day[day]
    assert first["topics"]["installs"]["rows"] == sum(per_day.values())

    # A second run writes only what committed since: one more install.
    install(app, at(scenario.day3, 20), "device-late")
    second = run_now(owner_api, destination)
    assert second["topics"]["installs"]["rows"] == 1
    assert second["topics"]["inapps"]["rows"] == 0
    new = set(s3_server.keys(s3_bucket)) - set(keys)
    assert {key.rsplit("/", 1)[1].split("-", 2)[-1] for key in new
            if "/part-" in key} == {f"{second['id']}.parquet"}
