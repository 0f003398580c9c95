"""docs/export.md's commands, run over files a real run wrote: the DuckDB, pyarrow and ClickHouse
(chdb) examples are executed and their answers checked against the database; the BigQuery and
Snowflake file patterns must match exactly the part files (never `_SUCCESS`). The columns
table of each topic must be raw_export/columns.py's."""

from __future__ import annotations

import fnmatch
import os
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path

import chdb
import duckdb
import pytest

from raw_export import columns
from raw_export.storage import DirectoryStorage
from raw_export.writing import write_run
from tests.analytics.helpers import build_scenario
from tracking.models import Event, Install

DOC = Path(__file__).resolve().parents[2] / "docs" / "export.md"
TYPES = {"string": "string", "timestamp": "timestamp (UTC, µs)", "decimal": "decimal(18, 6)",
         "int": "int64", "float": "float64", "bool": "boolean"}
pytestmark = pytest.mark.django_db(transaction=True)


def blocks(tag: str) -> list[str]:
    """The fenced blocks of the doc whose info string is `tag` ("sql duckdb", ...)."""
    found = re.findall(rf"^```{re.escape(tag)}\n(.*?)^```$", DOC.read_text(), re.M | re.S)
    assert found, f"docs/export.md has no {tag} block"
    return found


@pytest.fixture
def written(app, tmp_path, monkeypatch):
    """The scenario of tests/analytics written as Parquet and as CSV; the working directory is
    the Parquet copy of the prefix, as the doc's examples assume."""
    scenario = build_scenario(app)
    for fmt in ("parquet", "csv"):
        (tmp_path / fmt).mkdir()
        write_run(storage=DirectoryStorage(tmp_path / fmt), prefix="datalocker", fmt=fmt,
                  topics=list(columns.TOPICS), app_ids=[app.id], since=None, run_id="r1")
    monkeypatch.chdir(tmp_path / "parquet" / "datalocker")
    return scenario, tmp_path


def installs_by_source(app) -> Counter:
    return Counter(source or "organic" for source in
                   Install.objects.filter(app=app).values_list("media_source", flat=True))


def test_the_columns_tables_are_the_written_columns():
    text = DOC.read_text()
    for topic, cols in columns.TOPICS.items():
        section = text.split(f"### `{topic}`\n", 1)[1].strip().split("\n\n", 1)[0]
        rows = [line.split(" | ")[:2] for line in section.splitlines()[2:]]
        assert [(name.strip("| `"), type_) for name, type_ in rows] == [
            (c.name, TYPES[c.type]) for c in cols], topic


def test_the_duckdb_examples_answer_what_the_database_holds(written, app):
    by_source, by_day, complete, from_csv = blocks("sql duckdb")
    counted = Counter()
    for _day, source, n in duckdb.sql(by_source).fetchall():
        counted[source] += n
    assert counted == installs_by_source(app)

    days = duckdb.sql(by_day).fetchall()
    assert sum(events for _, events, _, _ in days) == Event.objects.filter(app=app).count()
    scenario = written[0]
    revenue = {day: usd for day, _, usd, _ in days}
    assert round(revenue[scenario.day1], 2) == Decimal("17.50")

    # Every hour of the scenario is long past, so every install is in a complete hour.
    assert duckdb.sql(complete).fetchall() == [(Install.objects.filter(app=app).count(),)]

    os.chdir(written[1] / "csv" / "datalocker")
    csv_rows = duckdb.sql(from_csv).fetchall()
    assert {source or "organic": n for source, n, _ in csv_rows} == installs_by_source(app)
    assert str(duckdb.sql(from_csv).types[2]) == "TIMESTAMP WITH TIME ZONE"


def test_the_pyarrow_example_counts_every_install(written, app, capsys):
    (code,) = blocks("python pyarrow")
    namespace: dict = {}
    exec(compile(code, "docs/export.md", "exec"), namespace)  # noqa: S102 (the doc's own code)
    assert Counter(namespace["per_source"]) == installs_by_source(app)
    assert capsys.readouterr().out.strip() == str(namespace["per_source"])


def test_the_clickhouse_examples_run_in_chdb(written, app):
    query, load = blocks("sql clickhouse")
    answer = chdb.query(query, "CSV").bytes().decode()
    counted = Counter()
    for line in answer.splitlines():
        _day, source, n = line.split(",")
        counted[source.strip('"')] += int(n)
    assert counted == installs_by_source(app)

    session = chdb.session.Session()
    try:
        statements = [s for s in load.split(";") if s.strip()]
        for statement in statements[:-1]:
            session.query(statement)
        days = session.query(statements[-1], "CSV").bytes().decode().splitlines()
    finally:
        session.close()
    scenario = written[0]
    by_day = {line.split(",")[0].strip('"'): line.split(",") for line in days}
    assert int(by_day[scenario.day1.isoformat()][1]) == Event.objects.filter(
        app=app, occurred_at__date=scenario.day1).count()
    assert Decimal(by_day[scenario.day1.isoformat()][2]) == Decimal("17.5")


def keys_written(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_the_bigquery_wildcard_takes_a_days_parts_and_no_success(written):
    (command,) = blocks("sh bigquery")
    uri = re.search(r'"(gs://my-bucket/(datalocker/[^"]+))"', command).group(2)
    prefix = re.search(r"source_uri_prefix=gs://my-bucket/(\S+)", command).group(1)
    assert uri.startswith(prefix)
    day = written[0].day1.isoformat()
    uri = uri.replace("2026-11-05", day)
    keys = keys_written(written[1] / "parquet")
    # BigQuery's one wildcard matches any characters, slashes included (fnmatch's * too).
    matched = [k for k in keys if fnmatch.fnmatchcase(k, uri)]
    assert matched == [k for k in keys if k.startswith(f"datalocker/t=installs/dt={day}/")
                       and k.endswith(".parquet")]
    assert matched


def test_the_snowflake_pattern_takes_every_part_and_no_success(written):
    (script,) = blocks("sql snowflake")
    pattern = re.search(r"PATTERN = '([^']+)'", script).group(1)
    stage = re.search(r"URL = 's3://my-bucket/([^']+)'", script).group(1)
    source = re.search(r"COPY INTO installs FROM @datalocker/(\S+)", script).group(1)
    keys = [k for k in keys_written(written[1] / "parquet")
            if k.startswith(stage + source)]
    assert keys
    for key in keys:
        # Snowflake matches PATTERN against the path after the stage's URL.
        assert bool(re.fullmatch(pattern, key[len(stage):])) == key.endswith(".parquet"), key
