"""Personal access tokens as plain functions (teams/access_tokens.py), no HTTP: made, found by
their digest, refused when expired, after a role change or a removal, last use written at most
once a minute, pruned."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts import members
from accounts.models import User
from attribution_site.api.exceptions import NotFound
from teams import access_tokens, credentials
from teams.models import AccessToken
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def marketer(owner):
    return UserFactory(email="mia@example.com", role="marketer",
                       organization=owner.organization)


def test_a_token_is_stored_by_its_digest_with_its_persons_version(marketer):
    now = timezone.now()
    issued = access_tokens.access_token_create(user=marketer, name="export", now=now,
                                               expires_in_days=30)
    stored = AccessToken.objects.get()
    assert stored.token_digest == credentials.digest(issued.token)
    assert issued.token not in (stored.token_digest, stored.prefix)
    assert issued.token.startswith(stored.prefix)
    assert (stored.auth_version, stored.expires_at) == (0, now + timedelta(days=30))


def test_a_token_lets_its_person_in_with_their_current_role(owner, marketer):
    issued = access_tokens.access_token_create(user=marketer, name="export", now=timezone.now())
    assert access_tokens.access_token_user(token=issued.token, now=timezone.now()) == marketer
    User.objects.filter(pk=marketer.pk).update(role="viewer")  # without a version change
    assert access_tokens.access_token_user(token=issued.token,
                                           now=timezone.now()).role == "viewer"


def test_a_role_change_ends_the_token(owner, marketer):
    issued = access_tokens.access_token_create(user=marketer, name="export", now=timezone.now())
    members.member_role_change(organization_id=owner.organization_id, member_id=marketer.id,
                               role="developer")
    assert access_tokens.access_token_user(token=issued.token, now=timezone.now()) is None
    assert not access_tokens.access_tokens_of(user=User.objects.get(pk=marketer.pk),
                                              now=timezone.now()).exists()


def test_a_removal_deletes_the_token(owner, marketer):
    issued = access_tokens.access_token_create(user=marketer, name="export", now=timezone.now())
    members.member_remove(organization_id=owner.organization_id, member_id=marketer.id)
    assert not AccessToken.objects.exists()
    assert access_tokens.access_token_user(token=issued.token, now=timezone.now()) is None


def test_an_expired_or_unknown_token_lets_no_one_in(marketer):
    now = timezone.now()
    issued = access_tokens.access_token_create(user=marketer, name="export", now=now,
                                               expires_in_days=1)
    assert access_tokens.access_token_user(token=issued.token,
                                           now=now + timedelta(days=1)) is None
    assert access_tokens.access_token_user(token="pat_unknown", now=now) is None


def test_last_use_is_written_at_most_once_a_minute(marketer):
    now = timezone.now()
    issued = access_tokens.access_token_create(user=marketer, name="export", now=now)
    for seconds in (0, 30, 59):
        access_tokens.access_token_user(token=issued.token, now=now + timedelta(seconds=seconds))
    assert AccessToken.objects.get().last_used_at == now
    access_tokens.access_token_user(token=issued.token, now=now + timedelta(seconds=61))
    assert AccessToken.objects.get().last_used_at == now + timedelta(seconds=61)


def test_a_person_deletes_only_their_own_tokens(owner, marketer):
    mine = access_tokens.access_token_create(user=marketer, name="mine", now=timezone.now())
    theirs = access_tokens.access_token_create(user=owner, name="theirs", now=timezone.now())
    with pytest.raises(NotFound):
        access_tokens.access_token_delete(user=marketer, token_id=theirs.access_token.id)
    access_tokens.access_token_delete(user=marketer, token_id=mine.access_token.id)
    assert list(AccessToken.objects.values_list("name", flat=True)) == ["theirs"]


def test_the_prune_deletes_expired_tokens_and_those_of_an_earlier_role(owner, marketer):
    now = timezone.now()
    access_tokens.access_token_create(user=marketer, name="expired", now=now - timedelta(days=2),
                                      expires_in_days=1)
    access_tokens.access_token_create(user=marketer, name="before", now=now)
    User.objects.filter(pk=marketer.pk).update(auth_version=1)
    access_tokens.access_token_create(user=User.objects.get(pk=marketer.pk), name="after",
                                      now=now)
    assert access_tokens.access_tokens_prune(now=now) == 2
    assert list(AccessToken.objects.values_list("name", flat=True)) == ["after"]
