"""With a worker and beat started as the README starts them, a click, an install and a revenue
event sent through the API show up in the dashboard, the sources report and the attribution
report without anyone refreshing anything by hand: beat's refresh adds them within seconds.

The wait below is a bound for a broken setup (nothing ever shows), not a timing assertion: the
figures are measured by bench/analytics_bench.py.
"""

import time
import uuid

import pytest
from django.utils import timezone

from tests.processes import readme_commands, running, service_env

pytestmark = [pytest.mark.worker, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

DEVICE = "38400000-8cf0-11bd-b23e-10b96e40000d"


def figures(owner_api, app, endpoint: str) -> dict:
    today = timezone.now().date().isoformat()
    response = owner_api.get(f"/api/v1/analytics/{endpoint}", {
        "app_id": str(app.id), "start_date": today, "end_date": today})
    assert response.status_code == 200, response.content
    return response.json()["data"]


def wait_for(check, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.2)


def test_a_new_click_install_and_purchase_reach_every_report_with_beat_running(
        api, owner_api, app, sdk_key, settings, tmp_path):
    settings.ANALYTICS_REFRESH_ON_READ = False  # only beat's refresh may move the figures
    commands = {"worker": readme_commands("worker")[0], "beat": readme_commands("beat")[0]}
    with running(commands, tmp_path=tmp_path, env=service_env(ANALYTICS_REFRESH_ON_READ="0"),
                 ready={"worker": "ready.", "beat": "beat: Starting..."}) as processes:
        assert figures(owner_api, app, "dashboard")["kpis"]["total_installs"] == 0

        click = api.get("/api/v1/clicks", {"app_id": str(app.id), "pid": "facebook",
                                           "c": "summer", "advertising_id": DEVICE})
        assert click.status_code == 302
        install = api.post("/api/v1/installs", {
            "app_id": str(app.id), "platform": "android", "sdk_version": "1.0",
            "device_id": DEVICE}, format="json", HTTP_X_API_KEY=sdk_key)
        assert install.status_code in (200, 201), install.content
        purchase = api.post("/api/v1/events", {
            "app_id": str(app.id), "sdk_version": "1.0", "device_id": DEVICE, "events": [{
                "event_name": "purchase", "properties": {"amount": 4.99, "currency": "USD"},
                "timestamp": int(time.time() * 1000), "session_id": str(uuid.uuid4())}]},
            format="json", HTTP_X_API_KEY=sdk_key)
        assert purchase.status_code in (200, 201, 202), purchase.content

        kpis = wait_for(lambda: (lambda k: k if k["total_revenue"] == 4.99 else None)(
            figures(owner_api, app, "dashboard")["kpis"]))
        assert kpis, figures(owner_api, app, "dashboard")
        assert (kpis["total_installs"], kpis["paid_installs"], kpis["total_clicks"]) == (1, 1, 1)

        sources = {row["media_source"]: row for row in figures(owner_api, app, "sources")[
            "sources"]}
        assert sources["facebook"]["installs"] == 1 and sources["facebook"]["clicks"] == 1
        credit = figures(owner_api, app, "attribution")
        assert credit["credited_installs"] == 1, credit
        assert figures(owner_api, app, "dashboard")["data_through"] is not None
        # The refresh every 2 s leaves no routine lines in the logs (attribution_site/celery.py).
        # (The worker's start-up banner still lists the task among the registered ones.)
        assert "Sending due task analytics.rollups_refresh" not in processes["beat"].output()
        assert "Task analytics.rollups_refresh[" not in processes["worker"].output()
