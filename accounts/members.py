"""An organization's members: who they are, a role changed, a person removed (docs/teams.md,
"Members"). The API and the console call these; `keeps_an_admin` is the rule, pure.

A removal deletes the person's row: their JWTs and console sessions name a user that no longer
exists, and the email is free for a new invitation. A role change raises `auth_version`, which
every JWT and console session is checked against (accounts/authentication.py, User's session
hash), so the demoted person's credentials stop on their next request.
"""

from __future__ import annotations

import uuid

from django.db import transaction
from django.db.models import F

from accounts.models import Organization, User
from attribution_site import capabilities
from attribution_site.api.exceptions import Conflict, NotFound

LAST_ADMIN = ("An organization keeps at least one admin: make another member an admin before "
              "removing or demoting this one.")
NO_SUCH_MEMBER = "Member not found."


def keeps_an_admin(*, admins: int, role: str, becomes: str | None) -> bool:
    """Whether the organization still has an admin once a member of `role` becomes `becomes`
    (None: is removed), out of `admins` admins now."""
    was_admin = role == capabilities.ADMIN
    is_admin = becomes == capabilities.ADMIN
    return admins - was_admin + is_admin >= 1


def members_of(*, organization_id: uuid.UUID):
    return User.objects.filter(organization_id=organization_id).order_by("date_joined", "email")


def member_role_change(*, organization_id: uuid.UUID, member_id: uuid.UUID, role: str) -> User:
    """Give a member `role`; the same role again changes nothing (and ends no session)."""
    with transaction.atomic():
        member, admins = _locked(organization_id, member_id)
        if member.role == role:
            return member
        if not keeps_an_admin(admins=admins, role=member.role, becomes=role):
            raise Conflict(LAST_ADMIN)
        User.objects.filter(pk=member.pk).update(role=role, auth_version=F("auth_version") + 1)
    member.refresh_from_db()
    return member


def member_remove(*, organization_id: uuid.UUID, member_id: uuid.UUID) -> None:
    with transaction.atomic():
        member, admins = _locked(organization_id, member_id)
        if not keeps_an_admin(admins=admins, role=member.role, becomes=None):
            raise Conflict(LAST_ADMIN)
        member.delete()


def _locked(organization_id, member_id) -> tuple[User, int]:
    """The member and the organization's admin count, with the organization's row locked: two
    admins demoting each other at once are taken one after the other, so the second sees that
    the first left one admin."""
    Organization.objects.select_for_update().filter(pk=organization_id).first()
    member = User.objects.filter(organization_id=organization_id, pk=member_id).first()
    if member is None:
        raise NotFound(NO_SUCH_MEMBER)
    admins = User.objects.filter(organization_id=organization_id,
                                 role=capabilities.ADMIN).count()
    return member, admins
