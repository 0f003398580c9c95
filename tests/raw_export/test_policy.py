"""raw_export's pure rules: retries with backoff then a failed run, the schedule's pause after
one, how far behind a destination is, and what destination fields may hold. No database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from raw_export import policy, rules

NOW = datetime(2026, 11, 26, 10, 0, tzinfo=UTC)


def test_a_success_is_final():
    assert policy.decide(error=None, attempt_number=3, jitter=0.5) == policy.Decision(
        "succeeded", None)


def test_failures_back_off_then_the_run_is_failed():
    delays = [policy.decide(error="down", attempt_number=n, jitter=0.5).retry_in
              for n in range(1, policy.MAX_ATTEMPTS)]
    assert delays == list(policy.RETRY_DELAYS) and delays == sorted(delays)
    last = policy.decide(error="down", attempt_number=policy.MAX_ATTEMPTS, jitter=0.5)
    assert last == policy.Decision("failed", None)
    assert policy.exhausted(policy.MAX_ATTEMPTS) and not policy.exhausted(1)


@pytest.mark.parametrize("jitter", [0.0, 0.999])
def test_retry_delays_are_jittered_by_a_tenth(jitter):
    delay = policy.decide(error="down", attempt_number=1, jitter=jitter).retry_in
    assert policy.RETRY_DELAYS[0] * 0.9 <= delay <= policy.RETRY_DELAYS[0] * 1.1


def test_the_schedule_waits_an_hour_after_a_failed_run_only():
    assert policy.run_due(last_state=None, last_completed_at=None, now=NOW)
    assert policy.run_due(last_state="succeeded", last_completed_at=NOW, now=NOW)
    assert not policy.run_due(last_state="failed", last_completed_at=NOW - timedelta(minutes=59),
                              now=NOW)
    assert policy.run_due(last_state="failed", last_completed_at=NOW - timedelta(hours=1),
                          now=NOW)


def test_behind_counts_from_the_last_write_or_the_creation():
    limit = timedelta(hours=2)
    assert policy.behind(written_up_to=NOW - timedelta(hours=1), created_at=NOW - timedelta(
        days=9), now=NOW, limit=limit) is None
    assert policy.behind(written_up_to=None, created_at=NOW - timedelta(hours=3), now=NOW,
                         limit=limit) == timedelta(hours=3)
    assert policy.behind(written_up_to=None, created_at=NOW - timedelta(minutes=5), now=NOW,
                         limit=limit) is None


@pytest.mark.parametrize(("value", "ok"), [
    ("my-bucket", True), ("logs.example.com", True), ("gcs_bucket_1", True),
    ("ab", False), ("My-Bucket", False), ("-start", False), ("a..b", False), ("end-", False),
])
def test_bucket_names(value, ok):
    assert (rules.bucket_problem(value) is None) is ok


@pytest.mark.parametrize(("value", "ok"), [
    ("", True), ("raw", True), ("raw/attribution/", True), ("team=data/v1", True),
    ("/raw", False), ("raw//x", False), ("raw/../x", False), ("raw/./x", False),
    ("raw x", False), ("raw/ü", False),
])
def test_prefixes(value, ok):
    assert (rules.prefix_problem(value) is None) is ok


@pytest.mark.parametrize(("value", "ok"), [
    ("daily", True), ("team/daily", True), ("", False), ("/etc", False), ("../up", False),
    ("a/../../b", False), ("back\\slash", False),
])
def test_directory_paths(value, ok):
    assert (rules.path_problem(value) is None) is ok


@pytest.mark.parametrize(("value", "ok"), [("us-east-1", True), ("auto", True), ("", True),
                                          ("US-EAST", False), ("eu west", False)])
def test_regions(value, ok):
    assert (rules.region_problem(value) is None) is ok
