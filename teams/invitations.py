"""Invitations: made by an admin, listed while pending, revoked, accepted once (docs/teams.md,
"Invitations"). The API and the console call these; the secret rules are
teams/credentials.py's.

Accepting joins the person through `accounts.services.member_join` and deletes the invitation
in the same transaction, with the row locked: two tabs accepting one link at once give one
account, and the second gets the same refusal as any used link.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from accounts import services
from accounts.models import Organization, User
from attribution_site.api.exceptions import Conflict, NotFound, ValidationFailed
from teams import credentials
from teams.models import Invitation

INVITATION_REFUSED = ("This invitation link is not valid: it was used, revoked or has expired, "
                      "or it was copied incompletely. Ask an admin of the organization for a "
                      "new one.")
NO_SUCH_INVITATION = "Invitation not found."
LOGIN_METHOD = "invitation"  # the audit log's `auth.login` entry of an accepted one
EMAIL_REGISTERED = ("An account with this email already exists: a person belongs to one "
                    "organization.")


class InvitationRefused(ValidationFailed):
    """An unknown, used, revoked or expired token: one answer for all (docs/teams.md)."""

    def __init__(self):
        super().__init__(INVITATION_REFUSED, {"token": [INVITATION_REFUSED]})


@dataclass(frozen=True)
class Issued:
    invitation: Invitation
    token: str  # shown once, in the accept URL


def invitation_create(*, organization_id: uuid.UUID, email: str, role: str, invited_by: str,
                      now: datetime) -> Issued:
    """A pending invitation for `email` with `role`; one pending already for this email in this
    organization is replaced (its link stops working). A registered email is a Conflict."""
    if role not in User.Role.values:
        raise ValidationFailed("Invalid input: role.", {"role": [f"Unknown role {role!r}."]})
    email = email.strip().lower()
    if services.user_by_email(email=email) is not None:  # could never be accepted
        raise Conflict(EMAIL_REGISTERED, {"email": [EMAIL_REGISTERED]})
    token = credentials.invitation_token_new()
    with transaction.atomic():
        # Two admins inviting one email at once are taken one after the other, so the second
        # replaces the first instead of meeting the one-per-email constraint.
        Organization.objects.select_for_update().filter(pk=organization_id).first()
        Invitation.objects.filter(organization_id=organization_id, email=email).delete()
        invitation = Invitation.objects.create(
            organization_id=organization_id, email=email, role=role,
            token_digest=credentials.digest(token), invited_by_email=invited_by,
            created_at=now, expires_at=credentials.invitation_expiry(now=now))
    return Issued(invitation=invitation, token=token)


def invitations_pending(*, organization_id: uuid.UUID, now: datetime):
    """Those that may still be accepted, newest first (expired ones wait for beat's prune
    but are never shown)."""
    return Invitation.objects.filter(organization_id=organization_id,
                                     expires_at__gt=now).order_by("-created_at", "email")


def invitation_revoke(*, organization_id: uuid.UUID, invitation_id: uuid.UUID) -> None:
    deleted, _ = Invitation.objects.filter(organization_id=organization_id,
                                           pk=invitation_id).delete()
    if not deleted:
        raise NotFound(NO_SUCH_INVITATION)


def invitation_for_token(*, token: str, now: datetime) -> Invitation | None:
    """The pending invitation a link carries, for the accept page to say what it is for."""
    return (Invitation.objects.select_related("organization")
            .filter(token_digest=credentials.digest(token), expires_at__gt=now).first())


def invitation_accept(*, token: str, name: str, password: str, now: datetime) -> User:
    """The new member made from the invitation `token` carries; InvitationRefused when no
    pending invitation has it, a Conflict when its email was registered since, a
    ValidationFailed for a password the rules refuse (the invitation stays usable for both)."""
    with transaction.atomic():
        invitation = (Invitation.objects.select_for_update()
                      .filter(token_digest=credentials.digest(token), expires_at__gt=now)
                      .first())
        if invitation is None:
            raise InvitationRefused()
        user = services.member_join(organization_id=invitation.organization_id,
                                    email=invitation.email, name=name, password=password,
                                    role=invitation.role)
        invitation.delete()
    return user


def invitations_prune(*, now: datetime) -> int:
    """Delete the expired invitations (beat, hourly); how many went."""
    deleted, _ = Invitation.objects.filter(expires_at__lte=now).delete()
    return deleted
