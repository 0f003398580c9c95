"""The secrets' shapes and the lifetime rules (teams/credentials.py): pure, no database."""

import hashlib
from datetime import UTC, datetime, timedelta

from teams import credentials

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def test_an_access_token_is_prefixed_random_and_told_from_a_jwt():
    first, second = credentials.access_token_new(), credentials.access_token_new()
    assert first.startswith("pat_") and first != second and len(first) > 40
    assert credentials.is_access_token(first)
    assert not credentials.is_access_token("eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl")
    assert "." not in first  # the audit log tells a JWT by its dots


def test_a_secret_is_kept_as_its_sha256():
    assert credentials.digest("pat_abc") == hashlib.sha256(b"pat_abc").hexdigest()
    assert len(credentials.digest(credentials.invitation_token_new())) == 64


def test_the_shown_prefix_is_not_the_token():
    token = credentials.access_token_new()
    assert credentials.shown_prefix(token) == token[:12] and len(token) > 12


def test_an_invitation_lasts_seven_days():
    assert credentials.invitation_expiry(now=NOW) == NOW + timedelta(days=7)


def test_a_token_lasts_the_days_asked_or_ninety():
    assert credentials.access_token_expiry(now=NOW, days=1) == NOW + timedelta(days=1)
    assert credentials.access_token_expiry(now=NOW, days=None) == NOW + timedelta(days=90)


def test_last_use_is_written_at_most_once_a_minute():
    assert credentials.last_use_due(last_used_at=None, now=NOW)
    assert not credentials.last_use_due(last_used_at=NOW - timedelta(seconds=59), now=NOW)
    assert credentials.last_use_due(last_used_at=NOW - timedelta(seconds=60), now=NOW)


def test_a_token_holds_only_unexpired_for_an_active_person_of_the_same_version():
    holds = {"expires_at": NOW + timedelta(days=1), "issued_version": 2, "user_version": 2,
             "user_active": True, "now": NOW}
    assert credentials.access_token_holds(**holds)
    assert not credentials.access_token_holds(**{**holds, "expires_at": NOW})
    assert not credentials.access_token_holds(**{**holds, "user_version": 3})
    assert not credentials.access_token_holds(**{**holds, "user_active": False})
