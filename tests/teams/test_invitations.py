"""Invitations as plain functions (teams/invitations.py), no HTTP: made, replaced, refused for
a registered email, accepted once, refused when expired, used, revoked or unknown, pruned."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from attribution_site.api.exceptions import Conflict, NotFound, ValidationFailed
from teams import credentials, invitations
from teams.models import Invitation
from tests.factories import UserFactory
from tests.teams.helpers import PASSWORD

pytestmark = pytest.mark.django_db


def issue(owner, email="new@example.com", role="marketer", now=None):
    return invitations.invitation_create(organization_id=owner.organization_id, email=email,
                                         role=role, invited_by=owner.email,
                                         now=now or timezone.now())


def accept(token, now=None, name="New Person", password=PASSWORD):
    return invitations.invitation_accept(token=token, name=name, password=password,
                                         now=now or timezone.now())


def test_an_invitation_is_stored_by_its_tokens_digest_for_seven_days(owner):
    now = timezone.now()
    issued = issue(owner, email=" New@Example.com ", now=now)
    stored = Invitation.objects.get()
    assert (stored.email, stored.role, stored.invited_by_email) == (
        "new@example.com", "marketer", owner.email)
    assert stored.token_digest == credentials.digest(issued.token) != issued.token
    assert stored.expires_at == now + timedelta(days=7)


def test_inviting_the_same_email_again_replaces_the_earlier_link(owner):
    first = issue(owner, role="viewer")
    second = issue(owner, role="developer")
    assert Invitation.objects.get().role == "developer"
    with pytest.raises(ValidationFailed):
        accept(first.token)
    assert accept(second.token).role == "developer"


def test_another_organization_may_invite_the_same_email(owner, outsider):
    issue(owner)
    issue(outsider)
    assert Invitation.objects.count() == 2


def test_an_unknown_role_cannot_be_invited(owner):
    with pytest.raises(ValidationFailed) as refused:
        issue(owner, role="owner")
    assert "role" in refused.value.details
    assert not Invitation.objects.exists()


def test_a_registered_email_cannot_be_invited(owner, outsider):
    with pytest.raises(Conflict) as refused:
        issue(owner, email="OUTSIDER@example.org")
    assert "email" in refused.value.details
    assert not Invitation.objects.exists()


def test_accepting_joins_the_organization_with_the_role_and_ends_the_invitation(owner):
    issued = issue(owner, role="marketer")
    user = accept(issued.token, name="Mia")
    assert (user.email, user.name, user.role, user.organization_id) == (
        "new@example.com", "Mia", "marketer", owner.organization_id)
    assert user.check_password(PASSWORD)
    assert not Invitation.objects.exists()


def test_a_token_works_once(owner):
    issued = issue(owner)
    accept(issued.token)
    with pytest.raises(invitations.InvitationRefused):
        accept(issued.token, name="Someone else")
    assert User.objects.filter(email="new@example.com").count() == 1


def test_an_expired_invitation_is_refused_like_an_unknown_one(owner):
    now = timezone.now()
    issued = issue(owner, now=now)
    with pytest.raises(invitations.InvitationRefused) as expired:
        accept(issued.token, now=now + timedelta(days=7))
    with pytest.raises(invitations.InvitationRefused) as unknown:
        accept("not-a-token", now=now)
    assert (expired.value.message, expired.value.details) == (
        unknown.value.message, unknown.value.details)
    assert expired.value.details == {"token": [invitations.INVITATION_REFUSED]}
    assert accept(issued.token, now=now + timedelta(days=7) - timedelta(seconds=1))


def test_a_revoked_invitation_is_refused(owner):
    issued = issue(owner)
    invitations.invitation_revoke(organization_id=owner.organization_id,
                                  invitation_id=issued.invitation.id)
    with pytest.raises(invitations.InvitationRefused):
        accept(issued.token)


def test_another_organizations_invitation_cannot_be_revoked(owner, outsider):
    issued = issue(outsider)
    with pytest.raises(NotFound):
        invitations.invitation_revoke(organization_id=owner.organization_id,
                                      invitation_id=issued.invitation.id)
    assert Invitation.objects.exists()


def test_an_email_registered_since_the_invitation_is_a_conflict_and_keeps_it(owner, outsider):
    issued = issue(owner, email="late@example.com")
    UserFactory(email="late@example.com")
    with pytest.raises(Conflict):
        accept(issued.token)
    assert Invitation.objects.exists()


def test_a_refused_password_keeps_the_invitation_usable(owner):
    issued = issue(owner)
    with pytest.raises(ValidationFailed) as refused:
        accept(issued.token, password="short")
    assert "password" in refused.value.details
    assert accept(issued.token).email == "new@example.com"


def test_pending_lists_only_unexpired_invitations_of_the_organization(owner, outsider):
    now = timezone.now()
    issue(owner, email="old@example.com", now=now - timedelta(days=8))
    issue(owner, email="fresh@example.com", now=now)
    issue(outsider, email="theirs@example.com", now=now)
    pending = invitations.invitations_pending(organization_id=owner.organization_id, now=now)
    assert [i.email for i in pending] == ["fresh@example.com"]


def test_the_prune_deletes_expired_invitations_only(owner):
    now = timezone.now()
    issue(owner, email="old@example.com", now=now - timedelta(days=7))
    issue(owner, email="fresh@example.com", now=now)
    assert invitations.invitations_prune(now=now) == 1
    assert list(Invitation.objects.values_list("email", flat=True)) == ["fresh@example.com"]
