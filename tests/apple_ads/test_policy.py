"""The exchange policy as plain functions (apple_ads/policy.py): how Apple's documented answers
read, and when a claim is retried, given up or finished. No database."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from apple_ads import policy
from apple_ads.policy import Outcome, Reading, State
from tests.apple_ads.helpers import ATTRIBUTED


def judged(status=None, body="", error=None):
    return policy.judge(Outcome(status_code=status, body=body, error=error))


def test_apples_documented_record_reads_as_an_apple_ads_install():
    verdict = judged(200, json.dumps(ATTRIBUTED))
    assert verdict.reading == Reading.ATTRIBUTED
    record = verdict.attribution
    assert (record.campaign_id, record.ad_group_id, record.keyword_id, record.ad_id) == (
        "542370539", "542317095", "87675432", "542317136")
    assert record.ad == "87675432"  # the keyword, when there is one
    assert record.click_date == datetime(2020, 4, 8, 17, 17, tzinfo=UTC)
    assert record.org_id == "40669820" and record.country_or_region == "US"


def test_a_record_without_a_keyword_names_the_ad():
    body = {**ATTRIBUTED}
    del body["keywordId"]
    assert judged(200, json.dumps(body)).attribution.ad == "542317136"


def test_attribution_false_is_a_final_not_attributed():
    verdict = judged(200, '{"attribution": false}')
    assert verdict.reading == Reading.NOT_ATTRIBUTED
    decision = policy.decide(verdict=verdict, attempt_number=1, token_age_seconds=1, jitter=0.5)
    assert decision == policy.Decision(State.NOT_ATTRIBUTED)


@pytest.mark.parametrize("body", ["<html>gateway</html>", "[]", '{"attribution": "yes"}',
                                  '{"attribution": true}'])
def test_a_200_without_a_readable_record_is_retried_as_unavailable(body):
    assert judged(200, body).reading == Reading.UNAVAILABLE


@pytest.mark.parametrize(("status", "reading"), [
    (400, Reading.INVALID_TOKEN), (404, Reading.NOT_YET), (500, Reading.UNAVAILABLE),
    (503, Reading.UNAVAILABLE), (429, Reading.UNAVAILABLE), (401, Reading.REFUSED),
    (302, Reading.REFUSED)])
def test_each_status_reads_as_apple_documents_it(status, reading):
    assert judged(status).reading == reading


def test_no_answer_is_unavailable():
    assert judged(error="No answer within 10 s.").reading == Reading.UNAVAILABLE


def test_an_invalid_token_is_never_retried():
    decision = policy.decide(verdict=judged(400), attempt_number=1, token_age_seconds=0,
                             jitter=0.5)
    assert decision == policy.Decision(State.INVALID)


def test_not_yet_follows_apples_five_second_retries_then_backs_off_then_gives_up():
    verdict = judged(404)
    delays = [policy.decide(verdict=verdict, attempt_number=n, token_age_seconds=0,
                            jitter=0.5).retry_in for n in range(1, 8)]
    assert delays == [5, 5, 5, 30, 120, 600, 3600]
    final = policy.decide(verdict=verdict, attempt_number=8, token_age_seconds=0, jitter=0.5)
    assert final == policy.Decision(State.NOT_FOUND)


def test_apple_down_is_retried_over_most_of_a_day_then_failed():
    verdict = judged(500)
    delays = [policy.decide(verdict=verdict, attempt_number=n, token_age_seconds=0,
                            jitter=0.5).retry_in for n in range(1, 7)]
    assert delays == list(policy.UNAVAILABLE_DELAYS)
    assert sum(delays) < policy.TOKEN_TTL_SECONDS
    assert policy.decide(verdict=verdict, attempt_number=7, token_age_seconds=0,
                         jitter=0.5).state == State.FAILED


def test_no_retry_is_scheduled_past_the_tokens_day():
    decision = policy.decide(verdict=judged(503), attempt_number=1,
                             token_age_seconds=policy.TOKEN_TTL_SECONDS - 30, jitter=0.5)
    assert decision.state == State.FAILED


def test_jitter_spreads_a_retry_by_ten_percent_either_way():
    low = policy.decide(verdict=judged(500), attempt_number=1, token_age_seconds=0, jitter=0)
    high = policy.decide(verdict=judged(500), attempt_number=1, token_age_seconds=0,
                         jitter=0.999999)
    assert low.retry_in == pytest.approx(54) and high.retry_in == pytest.approx(66, rel=1e-4)


@pytest.mark.parametrize(("text", "expected"), [
    ("2020-04-08T17:17Z", datetime(2020, 4, 8, 17, 17, tzinfo=UTC)),
    ("2020-04-08T17:17:05Z", datetime(2020, 4, 8, 17, 17, 5, tzinfo=UTC)),
    ("yesterday", None), (1586366220, None), (None, None)])
def test_click_dates_are_read_in_apples_format(text, expected):
    assert policy.parse_click_date(text) == expected

