"""The reference's analytics after its own story (a click, the install a second later, a
purchase): every report counts them, under each attribution model, and the CSV exports carry
them."""

import csv
import io
import time
from datetime import UTC, datetime

import pytest

from tests.contract.helpers import (
    click,
    data,
    device,
    error,
    events,
    eventually,
    install,
    purchase,
)

TODAY = datetime.now(UTC).date().isoformat()


@pytest.fixture
def story(service, owner, android):
    """The reference's story, once the reports include it (beat refreshes them every few
    seconds in the production shape; the embedded default refreshes on read)."""
    gaid = device()
    click(owner.caller, android.id, pid="facebook", c="summer", advertising_id=gaid)
    time.sleep(1)
    data(install(owner.caller, android, device_id=gaid), 201)
    data(install(owner.caller, android, device_id=device(), ip="81.2.70.9"), 201)  # organic
    data(events(owner.caller, android, gaid, purchase(4.99)), 200)
    eventually(lambda: data(report(owner, android, "dashboard"),
                            200)["kpis"]["total_revenue"] == 4.99, service=service)
    return owner, android, gaid


def report(owner, app, name, **params):
    today = datetime.now(UTC).date().isoformat()
    return owner.caller.get(f"analytics/{name}", params={
        "app_id": app.id, "start_date": today, "end_date": today, **params})


def test_the_dashboard_counts_the_story(service, story):
    owner, android, _ = story

    answer = data(report(owner, android, "dashboard"), 200)
    kpis = answer["kpis"]
    assert (kpis["total_installs"], kpis["total_revenue"]) == (2, 4.99)
    assert (kpis["paid_installs"], kpis["organic_installs"]) == (1, 1)
    for name in ("average_cpi", "conversion_rate"):
        assert isinstance(kpis[name], int | float)
    [day] = [d for d in answer["timeSeries"] if d["date"] == TODAY]
    assert (day["installs"], day["paid_installs"], day["organic_installs"], day["revenue"]) == (
        2, 1, 1, 4.99)


def test_sources_campaigns_revenue_and_retention_answer_for_the_story(service, story):
    owner, android, _ = story
    sources = data(report(owner, android, "sources"), 200)
    assert "facebook" in str(sources)
    campaigns = data(report(owner, android, "campaigns"), 200)
    assert "summer" in str(campaigns)
    assert "4.99" in str(data(report(owner, android, "revenue"), 200))
    data(report(owner, android, "retention"), 200)


@pytest.mark.parametrize("model", ["last-touch", "first-touch", "linear", "time-decay"])
def test_every_attribution_model_answers(story, model):
    owner, android, _ = story
    assert "facebook" in str(data(report(owner, android, "attribution", model=model), 200))


def test_an_unknown_model_or_missing_dates_are_400s(owner, android):
    error(report(owner, android, "attribution", model="u-shaped"), 400, "VALIDATION_ERROR")
    answer = owner.caller.get("analytics/dashboard", params={"app_id": android.id})
    details = error(answer, 400, "VALIDATION_ERROR")["details"]
    assert {"start_date", "end_date"} <= set(details)


def test_iso_datetimes_are_accepted_as_dates(service, story):
    owner, android, _ = story
    answer = owner.caller.get("analytics/dashboard", params={
        "app_id": android.id, "start_date": f"{TODAY}T00:00:00Z",
        "end_date": f"{TODAY}T23:59:59Z"})
    data(answer, 200)


@pytest.mark.parametrize(("kind", "rows"), [("installs", 2), ("events", 1), ("revenue", 1)])
def test_the_csv_exports_carry_the_story(service, story, kind, rows):
    owner, android, gaid = story

    def exported():
        answer = report(owner, android, "export", type=kind)
        assert answer.status_code == 200, answer.text
        assert answer.headers["Content-Type"].startswith("text/csv")
        table = list(csv.DictReader(io.StringIO(answer.text)))
        return len(table) == rows and table

    table = eventually(exported, service=service)
    assert gaid in answer_text(table)


def answer_text(table) -> str:
    return "\n".join(",".join(map(str, row.values())) for row in table)


def test_an_export_without_a_type_is_a_400(owner, android):
    error(report(owner, android, "export"), 400, "VALIDATION_ERROR")
    error(report(owner, android, "export", type="clicks"), 400, "VALIDATION_ERROR")
