"""A destination's runs (raw_export/writing.py) against a directory and moto's S3 server: the
layout, `_SUCCESS` after the parts, counts and revenue equal to the API's, nothing written twice,
a run killed mid-upload completed by the next, the CSV format, erased users absent."""

from __future__ import annotations

import csv
import gzip
import io
import re
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from privacy.erasure import ERASERS
from raw_export import columns
from raw_export.storage import DirectoryStorage, S3Storage, StorageError
from raw_export.writing import write_run
from tests.analytics.helpers import at, build_scenario, click, event, install
from tests.raw_export.s3_server import _moto_process, s3_bucket, s3_server  # noqa: F401 (fixtures)
from tracking.models import Install

pytestmark = pytest.mark.django_db(transaction=True)
ALL = list(columns.TOPICS)
PART = re.compile(r"^(?:[^/]+/)*t=(?P<topic>\w+)/dt=(?P<day>\d{4}-\d{2}-\d{2})/h=(?P<hour>\d{1,2})/"
                  r"(?P<name>part-\d{5}-[\w-]+\.(?:parquet|csv\.gz)|_SUCCESS)$")


class Recording(DirectoryStorage):
    """A directory that remembers the order keys were written in, and can fail on a chosen
    upload like a bucket going away mid-run."""

    def __init__(self, root, *, fail_at: int | None = None):
        super().__init__(root)
        self.puts: list[str] = []
        self.fail_at = fail_at

    def put_file(self, key, path):
        if self.fail_at is not None and len(self.puts) == self.fail_at:
            raise StorageError("The storage is unreachable.", reason="unreachable")
        self.puts.append(key)
        return super().put_file(key, path)

    def put_bytes(self, key, data):
        self.puts.append(key)
        super().put_bytes(key, data)


def run(storage, app, *, since=None, fmt="parquet", run_id=None, topics=ALL, prefix="raw"):
    return write_run(storage=storage, prefix=prefix, fmt=fmt, topics=topics, app_ids=[app.id],
                     since=since, run_id=run_id or uuid.uuid4().hex[:12])


def parquet_glob(root: Path, topic: str) -> str:
    return str(root / "raw" / f"t={topic}" / "*" / "*" / "*.parquet")


def sql(query: str) -> list[tuple]:
    return duckdb.sql(query).fetchall()


def test_every_topic_lands_hour_by_hour_with_success_after_its_last_part(app, tmp_path):
    scenario = build_scenario(app)
    storage = Recording(tmp_path)
    outcome = run(storage, app)

    assert outcome.topics["installs"].rows == 6
    assert outcome.topics["inapps"].rows == 10
    assert outcome.topics["clicks"].rows == 9
    assert all(counts.bytes > 0 for name, counts in outcome.topics.items()
               if counts.rows)
    for key in storage.puts:
        assert PART.match(key), key
    parts = [k for k in storage.puts if not k.endswith("_SUCCESS")]
    successes = [k for k in storage.puts if k.endswith("_SUCCESS")]
    # Every _SUCCESS comes after every part of the run, and every hour written (all of them
    # long past) has one.
    assert storage.puts == parts + successes
    assert {k.rsplit("/", 1)[0] for k in parts} == {k.rsplit("/", 1)[0] for k in successes}
    install_a = scenario.installs["A"].installed_at
    assert (f"raw/t=installs/dt={install_a:%Y-%m-%d}/h={install_a.hour}/_SUCCESS"
            in successes)
    assert {h["topic"] for h in outcome.hours_completed} == {"installs", "inapps", "clicks"}
    # Files on disk are what the storage was given.
    on_disk = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert on_disk == sorted(storage.puts)


def test_duckdb_reads_the_counts_and_revenue_the_api_reports(app, owner_api, tmp_path):
    scenario = build_scenario(app)
    run(DirectoryStorage(tmp_path), app)
    report = owner_api.get("/api/v1/analytics/dashboard", scenario.range).json()["data"]
    by_day = {d["date"]: d for d in report["timeSeries"]}

    installs = dict(sql(f"SELECT CAST(install_time AS DATE)::VARCHAR, count(*) FROM "
                        f"read_parquet('{parquet_glob(tmp_path, 'installs')}') GROUP BY 1"))
    revenue = dict(sql(f"SELECT CAST(event_time AS DATE)::VARCHAR, sum(event_revenue_usd) FROM "
                       f"read_parquet('{parquet_glob(tmp_path, 'inapps')}') "
                       f"WHERE event_time < '{scenario.day3 + timedelta(days=1)}' GROUP BY 1"))
    for day in (scenario.day1.isoformat(), scenario.day3.isoformat()):
        assert installs[day] == by_day[day]["installs"]
        assert round(revenue[day], 2) == Decimal(str(by_day[day]["revenue"]))
    # The currency without a rate keeps its amount and has no dollar figure.
    assert sql(f"SELECT event_revenue, event_revenue_usd FROM "
               f"read_parquet('{parquet_glob(tmp_path, 'inapps')}') "
               f"WHERE event_revenue_currency = 'BRL'") == [(Decimal("100.000000"), None)]
    clicks = sql(f"SELECT count(*) FROM read_parquet('{parquet_glob(tmp_path, 'clicks')}')")
    assert clicks == [(9,)]


def test_types_and_the_schema_version_are_the_documented_ones(app, tmp_path):
    build_scenario(app)
    run(DirectoryStorage(tmp_path), app, topics=["installs", "inapps"])
    for topic in ("installs", "inapps"):
        path = next((tmp_path / "raw" / f"t={topic}").rglob("*.parquet"))
        schema = pq.read_schema(path)
        assert schema.names == list(columns.names(topic))
        assert schema.metadata[b"schema_version"] == str(columns.SCHEMA_VERSION).encode()
        assert str(schema.field("app_id").type) == "string"
    schema = pq.read_schema(next((tmp_path / "raw" / "t=inapps").rglob("*.parquet")))
    assert str(schema.field("event_revenue").type) == "decimal128(18, 6)"
    assert str(schema.field("event_time").type) == "timestamp[us, tz=UTC]"


def test_two_runs_in_a_row_write_nothing_twice(app, tmp_path):
    build_scenario(app)
    storage = Recording(tmp_path)
    first = run(storage, app)
    written = list(storage.puts)
    second = run(storage, app, since=first.until)
    assert {name: c.rows for name, c in second.topics.items()} == dict.fromkeys(ALL, 0)
    assert [k for k in storage.puts[len(written):] if not k.endswith("_SUCCESS")] == []

    # A row committed now, stamped days ago (an import, a slow clock), is in the next run.
    late = install(app, at(datetime.now(UTC).date() - timedelta(days=9), 4), "dev-late")
    third = run(storage, app, since=second.until)
    assert third.topics["installs"].rows == 1
    ids = sql(f"SELECT install_id FROM read_parquet('{parquet_glob(tmp_path, 'installs')}')")
    assert len(ids) == len(set(ids)) == Install.objects.filter(app=app).count()
    assert (str(late.id),) in ids


def test_a_run_killed_mid_upload_is_completed_by_the_next(app, tmp_path, settings):
    build_scenario(app)
    dying = Recording(tmp_path, fail_at=4)
    with pytest.raises(StorageError):
        run(dying, app, run_id="run-7")
    assert not any(k.endswith("_SUCCESS") for k in dying.puts)
    assert len(dying.puts) == 4

    # More rows arrive before the retry, which takes a later watermark.
    install(app, at(datetime.now(UTC).date() - timedelta(days=40), 23), "dev-extra")
    retry = run(Recording(tmp_path), app, run_id="run-7")
    assert retry.topics["installs"].rows == 7
    for topic, table in (("installs", "install_id"), ("inapps", "event_row_id"),
                         ("clicks", "click_id")):
        ids = sql(f"SELECT {table} FROM read_parquet('{parquet_glob(tmp_path, topic)}')")
        assert len(ids) == len(set(ids)) == retry.topics[topic].rows, topic


def test_csv_is_gzip_utf8_without_bom_with_a_header_quotes_and_lf(app, tmp_path):
    scenario = build_scenario(app)
    Install.objects.filter(id=scenario.installs["A"].id).update(
        user_agent='Dalvik/2.1.0 (Linux; "quoted", comma) — é')
    run(DirectoryStorage(tmp_path), app, fmt="csv", topics=["installs", "inapps"])
    files = sorted((tmp_path / "raw" / "t=installs").rglob("*.csv.gz"))
    assert files
    raw = gzip.decompress(files[0].read_bytes())
    assert not raw.startswith(b"\xef\xbb\xbf")
    assert b"\r" not in raw
    text = raw.decode("utf-8")
    header = text.split("\n", 1)[0]
    assert header == ",".join(f'"{name}"' for name in columns.names("installs"))
    rows = [row for path in files
            for row in csv.DictReader(io.StringIO(gzip.decompress(path.read_bytes()).decode()))]
    assert len(rows) == 6
    a = next(r for r in rows if r["install_id"] == str(scenario.installs["A"].id))
    assert a["user_agent"] == 'Dalvik/2.1.0 (Linux; "quoted", comma) — é'
    assert a["install_time"] == scenario.installs["A"].installed_at.strftime(
        "%Y-%m-%dT%H:%M:%S.000000Z")
    assert a["is_organic"] == "false" and a["schema_version"] == str(columns.SCHEMA_VERSION)
    everything = b"".join(gzip.decompress(path.read_bytes()) for path in files).decode()
    assert '"Dalvik/2.1.0 (Linux; ""quoted"", comma) — é"' in everything
    events = [row for path in (tmp_path / "raw" / "t=inapps").rglob("*.csv.gz")
              for row in csv.DictReader(io.StringIO(gzip.decompress(path.read_bytes()).decode()))]
    purchase = next(r for r in events if r["event_revenue_currency"] == "EUR"
                    and r["event_revenue"] == "4.000000")
    assert purchase["event_revenue_usd"] == "5.000000"  # 4 EUR at 0.8 EUR per dollar


def test_an_erased_user_is_absent_from_files_written_after_the_erasure(app, tmp_path):
    day = datetime.now(UTC).date() - timedelta(days=3)
    tap = click(app, at(day, 8), "facebook", "fb_c1", "erase-me-device")
    type(tap).objects.filter(id=tap.id).update(ip="203.0.113.77",
                                                       user_agent="Erased UA/1.0")
    gone = install(app, at(day, 9), "erase-me-device", source="facebook", campaign="fb_c1",
                   click_id=tap.id, touch=tap.clicked_at)
    Install.objects.filter(id=gone.id).update(ip="203.0.113.77", customer_user_id="user-77",
                                              user_agent="Erased UA/1.0")
    event(app, at(day, 10), "erase-me-device", "purchase", install_row=gone, amount="1.00",
          currency="USD")
    kept = install(app, at(day, 11), "kept-device")
    Install.objects.filter(id=kept.id).update(ip="198.51.100.0")  # masked by retention

    for erase in ERASERS:
        erase(app.id, install_ids=[gone.id], device_ids=["erase-me-device"])
    for fmt in ("parquet", "csv"):
        root = tmp_path / fmt
        root.mkdir()
        run(DirectoryStorage(root), app, fmt=fmt, topics=["installs", "inapps", "clicks"])
        everything = b"".join(
            gzip.decompress(p.read_bytes()) if fmt == "csv" else p.read_bytes()
            for p in root.rglob("part-*"))
        for secret in (b"erase-me-device", b"203.0.113.77", b"user-77", b"Erased UA"):
            assert secret not in everything, (fmt, secret)
        assert b"kept-device" in everything
        assert b"198.51.100.0" in everything  # a masked address goes out masked
    rows = sql(f"SELECT install_id, advertising_id, ip, media_source FROM "
               f"read_parquet('{parquet_glob(tmp_path / 'parquet', 'installs')}') "
               f"ORDER BY install_time")
    assert rows == [(str(gone.id), None, None, "facebook"),
                    (str(kept.id), "kept-device", "198.51.100.0", None)]


def test_a_bucket_on_the_s3_server_receives_every_topic(app, s3_server, s3_bucket, tmp_path):  # noqa: F811
    build_scenario(app)
    storage = S3Storage(bucket=s3_bucket, endpoint_url=s3_server.endpoint_url,
                        region=s3_server.region, access_key_id=s3_server.access_key_id,
                        secret_access_key=s3_server.secret_access_key)
    outcome = run(storage, app, prefix="datalocker/acme")
    keys = s3_server.keys(s3_bucket)
    assert keys and all(PART.match(k) and k.startswith("datalocker/acme/t=") for k in keys)
    client = s3_server.client()
    for key in keys:
        if key.endswith(".parquet"):
            target = tmp_path / key
            target.parent.mkdir(parents=True, exist_ok=True)
            client.download_file(s3_bucket, key, str(target))
    counts = {topic: sql(f"SELECT count(*) FROM read_parquet("
                         f"'{tmp_path}/datalocker/acme/t={topic}/*/*/*.parquet')")[0][0]
              for topic in ("installs", "inapps", "clicks")}
    assert counts == {topic: outcome.topics[topic].rows for topic in counts}
