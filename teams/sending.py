"""An invitation made and sent: stored first, then its link built and, with a mail server
configured, emailed (docs/teams.md, "Invitations"). The API and the console call this one
function, so both answer the same link and the same `emailed`.

The link is absolute, built from the request the way the service builds its other public
URLs (`build_absolute_uri`, as privacy's callbacks and the link builder do): behind a proxy it
follows the Host the proxy passes on (ALLOWED_HOSTS, CSRF_TRUSTED_ORIGINS).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from urllib.parse import urlencode

from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from teams import invitations, letters, mail
from teams.models import Invitation


@dataclass(frozen=True)
class Sent:
    invitation: Invitation
    accept_url: str  # carries the token: shown once
    emailed: bool


def accept_url(request, token: str) -> str:
    page = reverse("console:invitation-accept")
    return request.build_absolute_uri(f"{page}?{urlencode({'token': token})}")


def invitation_send(request, *, organization_id: uuid.UUID, inviter: User, email: str,
                    role: str) -> Sent:
    issued = invitations.invitation_create(organization_id=organization_id, email=email,
                                           role=role, invited_by=inviter.email,
                                           now=timezone.now())
    url = accept_url(request, issued.token)
    letter = letters.invitation_letter(
        inviter=f"{inviter.name} ({inviter.email})" if inviter.name else inviter.email,
        organization=inviter.organization.name, role=issued.invitation.role, accept_url=url,
        expires_at=issued.invitation.expires_at)
    emailed = mail.letter_send(to=issued.invitation.email, letter=letter)
    return Sent(invitation=issued.invitation, accept_url=url, emailed=emailed)
