"""The platforms' common reading of an answer (outbox/replies.py) and what is kept of it, as
plain functions: no database, no network."""

from __future__ import annotations

import pytest

from apple_ads import policy as apple_policy
from networks.google import policy as google_policy
from outbox.replies import Reply, ReplyClass, classify, text


@pytest.mark.parametrize("status, permanent", [(400, True), (401, True), (404, True),
                                               (429, False), (500, False), (None, False)])
def test_a_platforms_4xx_is_final(status, permanent):
    assert (classify(status) == ReplyClass.REFUSED) is permanent


@pytest.mark.parametrize("status, expected", [
    (200, ReplyClass.ACCEPTED), (204, ReplyClass.ACCEPTED), (302, ReplyClass.UNEXPECTED),
    (429, ReplyClass.UNAVAILABLE), (503, ReplyClass.UNAVAILABLE), (None, ReplyClass.UNAVAILABLE)])
def test_each_status_reads_as_one_class(status, expected):
    assert classify(status) == expected


def test_no_answer_is_unavailable_whatever_the_status():
    assert Reply(status_code=200, error="No answer within 10 s.").reply_class == \
        ReplyClass.UNAVAILABLE


def test_each_kinds_outcome_is_the_one_reply():
    assert apple_policy.Outcome is google_policy.Outcome is Reply


def test_stored_answers_are_text_without_nul_and_bounded():
    stored = text(b"a\x00b" + b"x" * 5000, apple_policy.RESPONSE_BODY_LIMIT)
    assert "\x00" not in stored and len(stored) == apple_policy.RESPONSE_BODY_LIMIT
