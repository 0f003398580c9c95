"""The networks' spend readers as pure functions: each network's documented answers read into
rows (string numbers, micros, batches, pages, dates with times), its errors into words, and the
retry policy. No database, no network: `call` is a fake that answers from a list."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from networks.apple import spend as apple
from networks.google import spend as google
from networks.meta import spend as meta
from networks.spend import core, policy
from networks.spend.core import Answer, Failure, PullError
from networks.tiktok import spend as tiktok
from tests.networks.spend.helpers import APPLE_PRIVATE_PEM

DAY = date(2026, 3, 1)


def answers(*bodies, status=200):
    queue = [Answer(status_code=status, body=json.dumps(body)) for body in bodies]
    asked = []

    def call(request):
        asked.append(request)
        return queue.pop(0)
    return call, asked


def test_metas_strings_become_numbers_and_pages_are_followed():
    page = {"data": [{"campaign_id": "1", "campaign_name": "C", "adset_id": "2", "ad_id": "3",
                      "spend": "10.57", "impressions": "1200", "clicks": "31",
                      "account_currency": "eur", "date_start": "2026-03-01"}],
            "paging": {"next": "https://graph.example/v21.0/act_1/insights?after=x"}}
    last = {"data": [], "paging": {}}
    call, asked = answers(page, last)
    rows = list(meta.rows(meta.Connection("act_1", "tok" * 6), origin="https://graph.example",
                          since=DAY, until=DAY, call=call))
    assert rows == [core.SpendRow(day=DAY, campaign_id="1", campaign_name="C", adset_id="2",
                                  ad_id="3", currency="EUR", spend=Decimal("10.57"),
                                  impressions=1200, clicks=31)]
    assert asked[1].url == "https://graph.example/v21.0/act_1/insights?after=x"
    assert asked[0].secrets == ("tok" * 6,)


def test_a_meta_next_page_on_another_host_is_not_followed():
    call, _ = answers({"data": [], "paging": {"next": "https://evil.example/x?access_token=t"}})
    with pytest.raises(PullError) as caught:
        list(meta.rows(meta.Connection("act_1", "t" * 20), origin="https://graph.example",
                       since=DAY, until=DAY, call=call))
    assert caught.value.failure == Failure.REFUSED


def test_metas_rate_limit_codes_are_retried():
    with pytest.raises(PullError) as caught:
        meta.judge(Answer(400, json.dumps({"error": {"message": "User request limit reached",
                                                     "code": 17}})))
    assert caught.value.failure == Failure.RATE_LIMITED


def test_google_reads_micros_across_batches():
    batch = {"results": [{"campaign": {"id": "11", "name": "A"}, "adGroup": {"id": "22"},
                          "metrics": {"costMicros": "1234567", "impressions": "9",
                                      "clicks": "2"},
                          "segments": {"date": "2026-03-01"},
                          "customer": {"currencyCode": "JPY"}}]}
    rows = list(google.batch_rows([batch, batch]))
    assert [r.spend for r in rows] == [Decimal("1.234567")] * 2
    assert rows[0].adset_id == "22" and rows[0].ad_id == "" and rows[0].currency == "JPY"


def test_googles_failure_details_are_the_message():
    body = [{"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "Request contains "
                       "an invalid argument.", "details": [{"errors": [{"message": "The "
                       "customer account can't be accessed because it is not yet enabled or "
                       "has been deactivated."}]}]}}]
    with pytest.raises(PullError) as caught:
        google.judge(Answer(400, json.dumps(body)))
    assert caught.value.failure == Failure.REFUSED
    assert "not yet enabled or has been deactivated" in caught.value.message


def test_tiktok_error_inside_a_200_and_its_rate_limit():
    with pytest.raises(PullError) as caught:
        tiktok.judge(Answer(200, json.dumps({"code": 40100, "message": "Too many requests"})))
    assert caught.value.failure == Failure.RATE_LIMITED
    with pytest.raises(PullError) as caught:
        tiktok.judge(Answer(200, json.dumps({"code": 40001, "message": "No permission"})))
    assert caught.value.failure == Failure.REFUSED
    assert caught.value.message == "TikTok refused the request (code 40001): No permission"


def test_tiktok_days_with_a_time_are_days():
    data = {"list": [{"dimensions": {"ad_id": "7", "stat_time_day": "2026-03-01 00:00:00"},
                      "metrics": {"spend": "3.10", "impressions": "10", "clicks": "1",
                                  "campaign_id": "5", "currency": "USD"}}]}
    assert next(tiktok.page_rows(data)).day == DAY


def test_apples_client_secret_is_an_es256_jwt_with_its_claims():
    import jwt

    connection = apple.Connection("1", "SEARCHADS.client", "SEARCHADS.team", "key1",
                                  APPLE_PRIVATE_PEM)
    secret = apple.client_secret(connection, now=datetime(2026, 3, 1, tzinfo=UTC))
    assert jwt.get_unverified_header(secret) == {"alg": "ES256", "kid": "key1", "typ": "JWT"}
    claims = jwt.decode(secret, options={"verify_signature": False})
    assert (claims["sub"], claims["iss"], claims["aud"]) == (
        "SEARCHADS.client", "SEARCHADS.team", "https://appleid.apple.com")


def test_a_key_that_cannot_sign_is_refused_without_quoting_it():
    connection = apple.Connection("1", "c", "t", "k", "-----BEGIN EC PRIVATE KEY-----\nnope\n"
                                                       "-----END EC PRIVATE KEY-----\n")
    with pytest.raises(PullError) as caught:
        apple.client_secret(connection, now=datetime(2026, 3, 1, tzinfo=UTC))
    assert "nope" not in caught.value.message


def test_apples_error_beside_a_200_counts():
    with pytest.raises(PullError) as caught:
        apple.judge(Answer(200, json.dumps({"result": None, "error": {"errors": [
            {"messageCode": "INVALID_DATE", "message": "startTime is too far back"}]}})))
    assert caught.value.message == "Apple Ads refused the request: startTime is too far back"


def test_retry_after_is_read_as_seconds_or_a_date():
    now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    assert core.retry_after_seconds("30") == 30
    assert core.retry_after_seconds("Sun, 01 Mar 2026 12:01:00 GMT", now=now) == 60
    assert core.retry_after_seconds("99999") == core.RETRY_AFTER_MAXIMUM_SECONDS


def test_the_policy_retries_outages_honours_retry_after_and_ends_refusals():
    assert policy.retry_in(failure=Failure.REFUSED, attempt_number=1, retry_after=None,
                           jitter=0.5) is None
    assert policy.retry_in(failure=Failure.RATE_LIMITED, attempt_number=1, retry_after=42,
                           jitter=0.5) == 42
    assert policy.retry_in(failure=Failure.UNAVAILABLE, attempt_number=1, retry_after=None,
                           jitter=0.5) == 60
    assert policy.retry_in(failure=Failure.UNAVAILABLE, attempt_number=policy.MAX_ATTEMPTS,
                           retry_after=None, jitter=0.5) is None


def test_the_window_is_the_last_lookback_days():
    assert core.window(today=DAY, lookback_days=7) == (date(2026, 2, 23), DAY)


def test_secrets_are_masked():
    assert core.masked("token abcdEFGH1234 refused", ["abcdEFGH1234"]) == \
        "token [secret] refused"
