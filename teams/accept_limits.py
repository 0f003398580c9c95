"""The limit on accepting invitations, the one place the API and the console both call
(docs/teams.md, "Invitations"). Accepting is a login, so it draws on the login's allowance per
address (accounts.login_limits.address_attempt): a refused token counts against it, and once the
address has failed LOGIN_RATE_LIMIT_PER_ADDRESS times lately, logins and accepts from it wait
alike.
"""

from __future__ import annotations

from django.utils import timezone

from accounts.login_limits import address_attempt
from accounts.models import User
from teams import invitations


def invitation_accept_limited(request, *, token: str, name: str, password: str) -> User:
    return address_attempt(request, lambda: invitations.invitation_accept(
        token=token, name=name, password=password, now=timezone.now()),
        refused=invitations.InvitationRefused)
