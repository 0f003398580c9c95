"""Runs through the outbox: started now or by the schedule, retried with backoff through an
outage and completed after it, the watermark moved only by a run that wrote everything, the
error shown to the owner, /readyz warning when a destination falls behind, and the
credentials absent from logs and answers."""

from __future__ import annotations

import gzip
import logging
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from outbox.kind import kinds
from outbox.sweep import kind_sweep
from raw_export import policy, services, writing
from raw_export.enqueue import RUNS
from raw_export.models import Destination, Run, RunAttempt
from tests.analytics.helpers import install
from tests.raw_export.helpers import create, directory_body, s3_body

pytestmark = pytest.mark.django_db

URL = "/api/v1/data-destinations"


def start(api, destination) -> dict:
    response = api.post(f"{URL}/{destination['id']}/runs")
    assert response.status_code == 202, response.content
    return response.json()["data"]["run"]


def installs(app, count: int = 3) -> None:
    """Rows to export, received three hours ago (so their hour is complete)."""
    when = timezone.now().replace(minute=10, second=0, microsecond=0) - timedelta(hours=3)
    for number in range(count):
        install(app, when + timedelta(minutes=number), f"device-{number}")


def runs(api, destination) -> list[dict]:
    response = api.get(f"{URL}/{destination['id']}/runs")
    assert response.status_code == 200, response.content
    return response.json()["data"]["runs"]


def test_a_run_started_now_writes_and_moves_the_watermark(owner_api, app, export_root):
    installs(app)
    destination = create(owner_api, directory_body())
    run = start(owner_api, destination)
    assert run["state"] == "pending" and run["trigger"] == "manual"
    services.run_attempt(run_id=run["id"])
    [listed] = runs(owner_api, destination)
    assert listed["id"] == run["id"] and listed["state"] == "succeeded"
    assert set(listed["topics"]) == set(destination["topics"])
    assert listed["topics"]["installs"]["rows"] == 3 == listed["rows"]
    assert listed["topics"]["installs"]["bytes"] > 0
    assert len([h for h in listed["hours_completed"] if h["topic"] == "installs"]) == 1
    written = sorted(p.name for p in (export_root / "daily").rglob("*") if p.is_file())
    assert written[0] == "_SUCCESS" and written[1].startswith("part-00000-")
    assert written[1].endswith(".csv.gz") and len(written) == 2
    stored = Destination.objects.get(id=destination["id"])
    assert stored.watermark is not None and stored.watermark_serial == 1
    answer = owner_api.get(f"{URL}/{destination['id']}").json()["data"]["destination"]
    assert answer["last_run"]["id"] == run["id"] and answer["written_up_to"] is not None
    assert answer["last_error"] == ""


def test_run_now_while_a_run_waits_for_its_retry_makes_it_due_instead_of_a_second(
        owner_api, app, s3_server, s3_bucket, s3_outage):
    installs(app)
    destination = create(owner_api, s3_body(s3_server, s3_bucket,
                                            endpoint_url=s3_outage.endpoint_url))
    s3_outage.down()
    run = start(owner_api, destination)
    services.run_attempt(run_id=run["id"])
    waiting = Run.objects.get(id=run["id"])
    assert waiting.state == "pending" and waiting.next_attempt_at > timezone.now()
    again = start(owner_api, destination)
    assert again["id"] == run["id"]
    assert Run.objects.get(id=run["id"]).next_attempt_at <= timezone.now()
    assert Run.objects.count() == 1


def test_an_outage_is_retried_with_backoff_then_recovered_with_nothing_skipped(
        owner_api, app, s3_server, s3_bucket, s3_outage):
    installs(app)
    destination = create(owner_api, s3_body(s3_server, s3_bucket,
                                            endpoint_url=s3_outage.endpoint_url))
    s3_outage.down()
    run = start(owner_api, destination)
    attempt = services.run_attempt(run_id=run["id"])
    assert attempt.reason == "unreachable"
    stored = Run.objects.get(id=run["id"])
    delay = (stored.next_attempt_at - attempt.finished_at).total_seconds()
    assert policy.RETRY_DELAYS[0] * 0.9 <= delay <= policy.RETRY_DELAYS[0] * 1.1
    # Not due yet: a duplicated message sends nothing.
    assert services.run_attempt(run_id=run["id"]) is None
    # What the owner sees: the error in words, on the destination and on the run.
    answer = owner_api.get(f"{URL}/{destination['id']}").json()["data"]["destination"]
    assert "unreachable" in answer["last_error"]
    assert answer["written_up_to"] is None
    [listed] = runs(owner_api, destination)
    assert listed["state"] == "pending" and "unreachable" in listed["error"]
    assert Destination.objects.get(id=destination["id"]).watermark is None

    # The second try fails too, and waits longer.
    Run.objects.filter(id=run["id"]).update(next_attempt_at=timezone.now())
    second = services.run_attempt(run_id=run["id"])
    stored = Run.objects.get(id=run["id"])
    assert (stored.next_attempt_at - second.finished_at).total_seconds() >= (
        policy.RETRY_DELAYS[1] * 0.9)

    s3_outage.up()
    Run.objects.filter(id=run["id"]).update(next_attempt_at=timezone.now())
    third = services.run_attempt(run_id=run["id"])
    assert third.number == 3 and third.error_message == ""
    stored = Run.objects.get(id=run["id"])
    assert stored.state == "succeeded" and stored.error_message == ""
    # Everything the failed tries did not write, and the hour's _SUCCESS after its part.
    assert stored.topics["installs"]["rows"] == 3
    keys = s3_server.keys(s3_bucket, "raw/attribution/t=installs/")
    assert [key.rsplit("/", 1)[1][:10] for key in keys] == ["_SUCCESS", "part-00000"]
    answer = owner_api.get(f"{URL}/{destination['id']}").json()["data"]["destination"]
    assert answer["last_error"] == "" and answer["written_up_to"] is not None
    assert [a.reason for a in RunAttempt.objects.order_by("number")] == [
        "unreachable", "unreachable", ""]


def test_a_run_out_of_tries_is_failed_and_the_next_starts_from_the_same_watermark(
        owner_api, app, s3_server, s3_bucket):
    installs(app)
    destination = create(owner_api, s3_body(s3_server, s3_bucket, secret_access_key="wrong"))
    run = start(owner_api, destination)
    for _ in range(policy.MAX_ATTEMPTS):
        Run.objects.filter(id=run["id"]).update(next_attempt_at=timezone.now())
        attempt = services.run_attempt(run_id=run["id"])
        assert attempt.reason == "bad_credentials"
    stored = Run.objects.get(id=run["id"])
    assert stored.state == "failed" and "bad credentials" in stored.error_message
    now = timezone.now()
    # The schedule waits out the pause after a failed run, then starts another.
    assert services.runs_schedule(now=now) == []
    [later] = services.runs_schedule(now=now + policy.FAILED_RUN_PAUSE)
    assert later != run["id"]
    # Fixed credentials: the new run writes from where the files stopped (nothing yet).
    owner_api.put(f"{URL}/{destination['id']}",
                  {"secret_access_key": s3_server.secret_access_key}, format="json")
    assert Run.objects.get(id=later).next_attempt_at <= timezone.now()
    services.run_attempt(run_id=later)
    assert Run.objects.get(id=later).state == "succeeded"
    assert Destination.objects.get(id=destination["id"]).watermark_serial == 1


def test_the_schedule_starts_one_run_per_destination_without_an_open_one(owner_api):
    first = create(owner_api, directory_body(name="one", path="one"))
    second = create(owner_api, directory_body(name="two", path="two"))
    now = timezone.now()
    started = services.runs_schedule(now=now)
    assert len(started) == 2
    assert {str(Run.objects.get(id=r).destination_id) for r in started} == {
        first["id"], second["id"]}
    assert services.runs_schedule(now=now) == []  # both still open
    services.run_attempt(run_id=started[0])
    assert len(services.runs_schedule(now=now)) == 1


def test_a_run_whose_worker_died_is_taken_back_by_the_sweep_and_completed(owner_api, app,
                                                                         export_root):
    installs(app)
    destination = create(owner_api, directory_body())
    run = start(owner_api, destination)
    # The dead worker had uploaded the run's part, and stored nothing.
    stored = Destination.objects.get(id=destination["id"])
    writing.write_run(storage=services.destination_storage(stored), prefix="", fmt="csv",
                      topics=["installs"], app_ids=[app.id], since=None, run_id=run["id"])
    now = timezone.now()
    # A worker claimed it and died: sending, its lease run out, its attempt open.
    Run.objects.filter(id=run["id"]).update(state="sending", attempts_made=1,
                                            lease_expires_at=now - timedelta(seconds=1))
    RunAttempt.objects.create(run_id=run["id"], number=1, started_at=now - timedelta(hours=1))
    assert kind_sweep(RUNS, now=now) == [run["id"]]
    assert RunAttempt.objects.get(number=1).reason == "interrupted"
    services.run_attempt(run_id=run["id"])
    assert Run.objects.get(id=run["id"]).state == "succeeded"
    # The retry wrote the same part name over the dead worker's: each row once.
    parts = list((export_root / "daily").rglob("part-*"))
    assert [part.name for part in parts] == [f"part-00000-{run['id']}.csv.gz"]
    assert len(gzip.decompress(parts[0].read_bytes()).splitlines()) == 1 + 3  # header, rows


def test_the_test_endpoint_answers_in_words(owner_api, s3_server, s3_bucket, s3_outage):
    good = create(owner_api, s3_body(s3_server, s3_bucket))
    cases = {
        "": good,
        "bad_credentials": create(owner_api, s3_body(s3_server, s3_bucket,
                                                     secret_access_key="not-the-secret")),
        "no_bucket": create(owner_api, s3_body(s3_server, "no-such-bucket-anywhere")),
        "unreachable": create(owner_api, s3_body(s3_server, s3_bucket,
                                                 endpoint_url=s3_outage.endpoint_url)),
    }
    s3_outage.down()
    words = {"bad_credentials": "bad credentials", "no_bucket": "no such bucket",
             "unreachable": "unreachable"}
    for reason, destination in cases.items():
        response = owner_api.post(f"{URL}/{destination['id']}/test")
        assert response.status_code == 200, response.content
        answer = response.json()["data"]
        assert answer["ok"] is (reason == "") and answer["reason"] == reason, answer
        if reason:
            assert words[reason] in answer["message"]
    assert s3_server.keys(s3_bucket) == []  # the probe removed what it wrote


def test_credentials_are_absent_from_logs_and_answers(owner_api, app, s3_server, s3_bucket, caplog):
    installs(app)
    caplog.set_level(logging.DEBUG)
    secret = "wrong/SECRET+value-1234567890"
    destination = create(owner_api, s3_body(s3_server, s3_bucket, secret_access_key=secret))
    answers = [owner_api.post(f"{URL}/{destination['id']}/test").content.decode()]
    run = start(owner_api, destination)
    services.run_attempt(run_id=run["id"])
    answers += [owner_api.get(f"{URL}/{destination['id']}").content.decode(),
                owner_api.get(f"{URL}/{destination['id']}/runs").content.decode(),
                owner_api.get(URL).content.decode()]
    assert "bad credentials" in answers[0] and "bad credentials" in answers[2]
    logged = caplog.text
    assert "bad credentials" in logged  # the failure is logged, in words
    for text in [logged, *answers]:
        assert secret not in text
        assert s3_server.access_key_id not in text


def test_readyz_warns_when_a_destination_falls_more_than_two_hours_behind(owner_api, api):
    behind = create(owner_api, directory_body(name="stale", path="stale"))
    create(owner_api, directory_body(name="fresh", path="fresh"))
    Destination.objects.filter(id=behind["id"]).update(
        created_at=timezone.now() - timedelta(seconds=settings.RAW_EXPORT_BEHIND_WARNING_SECONDS
                                              + 60),
        last_error="The storage service at http://minio:9000 is unreachable.")
    body = api.get("/readyz").json()["data"]
    assert body["checks"]["raw_export"] == "warning"
    [late] = body["raw_export"]["behind"]
    assert late["name"] == "stale" and "unreachable" in late["last_error"]
    assert late["behind_seconds"] > settings.RAW_EXPORT_BEHIND_WARNING_SECONDS
    # Written up to a moment ago: no longer behind.
    Destination.objects.filter(id=behind["id"]).update(written_up_to=timezone.now())
    body = api.get("/readyz").json()["data"]
    assert body["checks"]["raw_export"] == "ok"


def test_the_beat_schedule_and_the_queue_a_plain_worker_consumes():
    entry = settings.CELERY_BEAT_SCHEDULE["raw-export-schedule"]
    assert entry["task"] == "raw_export.schedule"
    assert entry["schedule"] == float(settings.RAW_EXPORT_INTERVAL_SECONDS)
    assert settings.CELERY_BEAT_SCHEDULE["outbox-sweep"]["task"] == "outbox.sweep"
    assert RUNS in kinds()  # swept by the one sweep
    queue = settings.CELERY_TASK_ROUTES["raw_export.*"]["queue"]
    assert queue in {declared.name for declared in settings.CELERY_TASK_QUEUES}
