"""The delivery policy, as plain functions: success, retries, URL templates (the address rule's
tests are tests/outbox/test_addresses.py)."""

import pytest

from delivery import payloads, policy
from delivery.policy import ErrorKind, Outcome, Verdict

DELAYS = (60, 300, 1800)


@pytest.mark.parametrize("status", [200, 201, 204, 299])
def test_a_2xx_answer_is_a_success(status):
    assert policy.judge(Outcome(status_code=status)) == Verdict(True, None)


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_a_failure_and_says_it_was_not_followed(status):
    verdict = policy.judge(Outcome(status_code=status, location="http://elsewhere.example/"))
    assert not verdict.succeeded and not verdict.permanent
    assert "not followed" in verdict.error_message
    assert "elsewhere.example" in verdict.error_message


@pytest.mark.parametrize("status", [400, 404, 410, 429, 500, 503])
def test_any_other_status_is_a_retryable_failure(status):
    verdict = policy.judge(Outcome(status_code=status))
    assert verdict == Verdict(False, f"Receiver answered {status}.", False)


def test_timeouts_and_connection_errors_are_retried_refusals_are_not():
    assert not policy.judge(Outcome(error_kind=ErrorKind.TIMEOUT, error="t")).permanent
    assert not policy.judge(Outcome(error_kind=ErrorKind.CONNECTION, error="c")).permanent
    assert policy.judge(Outcome(error_kind=ErrorKind.REFUSED, error="r")).permanent
    assert policy.judge(Outcome(error_kind=ErrorKind.INVALID, error="i")).permanent


def test_a_failure_is_retried_three_times_after_the_configured_delays():
    failure = Verdict(False, "Receiver answered 500.")
    assert policy.max_attempts(DELAYS) == 4
    retries = [policy.decide(verdict=failure, attempt_number=n, max_attempts=4, delays=DELAYS,
                             jitter=0.5) for n in (1, 2, 3)]
    assert [(d.state, d.retry_in) for d in retries] == [
        ("retry", 60), ("retry", 300), ("retry", 1800)]
    last = policy.decide(verdict=failure, attempt_number=4, max_attempts=4, delays=DELAYS,
                         jitter=0.5)
    assert last.state == "failed" and last.retry_in is None


def test_jitter_stays_within_ten_percent():
    low = policy.decide(verdict=Verdict(False, "x"), attempt_number=1, max_attempts=4,
                        delays=DELAYS, jitter=0.0)
    high = policy.decide(verdict=Verdict(False, "x"), attempt_number=1, max_attempts=4,
                         delays=DELAYS, jitter=0.999999)
    assert low.retry_in == pytest.approx(54) and high.retry_in == pytest.approx(66, abs=0.01)


def test_success_ends_the_delivery_and_a_permanent_failure_is_not_retried():
    assert policy.decide(verdict=Verdict(True, None), attempt_number=1, max_attempts=4,
                         delays=DELAYS, jitter=0).state == "succeeded"
    refused = Verdict(False, "Refused", permanent=True)
    assert policy.decide(verdict=refused, attempt_number=1, max_attempts=4, delays=DELAYS,
                         jitter=0).state == "failed"


def test_a_delivery_whose_worker_was_lost_is_given_up_once_it_had_all_its_tries():
    assert not policy.exhausted(attempts_made=3, max_attempts=4)
    assert policy.exhausted(attempts_made=4, max_attempts=4)


def template_problem(url):
    return policy.url_problem(url, schemes=("http", "https"), macros=payloads.MACROS)


@pytest.mark.parametrize("url", [
    "https://network.example/pb?click={click_time}&d={device_id}&c={campaign_id}",
    "http://network.example:8080/{media_source}/{app_id}?m={match_type}&conf={confidence}",
    "https://user:pass@network.example/pb?i={install_time}&e={event_name}",
    "https://network.example/p",
])
def test_valid_templates_pass(url):
    assert template_problem(url) is None


@pytest.mark.parametrize("url,fragment", [
    ("https://network.example/pb?x={nope}", "{nope}"),
    ("https://{media_source}.example/pb", "host"),
    ("https://network.example:{port}/pb", "host"),
    ("ftp://network.example/pb", "http or https"),
    ("network.example/pb", "http or https"),
    ("https:///pb", "valid host"),
    ("https://network.example/p b", "spaces"),
    ("https://network.example/pb?x={device_id", "Unbalanced"),
    ("https://exa mple.com/", "spaces"),
    ("https://network.example:99999/", "port"),
])
def test_invalid_templates_are_named(url, fragment):
    assert fragment in template_problem(url)


def test_an_unknown_macro_is_named_and_the_known_ones_listed():
    problem = template_problem("https://n.example/?a={install_time}&b={foo}&c={bar}")
    assert problem.startswith("Unknown macro {foo}, {bar}.")
    assert "{click_time}" in problem


def test_a_webhook_url_must_be_https():
    assert policy.url_problem("http://hooks.example/x", schemes=("https",)) is not None
    assert policy.url_problem("https://hooks.example/x", schemes=("https",)) is None
    assert "{" in policy.url_problem("https://hooks.example/{x}", schemes=("https",))
