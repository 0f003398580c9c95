"""The limit on accepting invitations, the one place the API and the console both call
(docs/teams.md, "Invitations"). Accepting is a login, so it draws on the login's allowance per
address (accounts/login_limits.py): a refused token counts against it, and once the address
has failed LOGIN_RATE_LIMIT_PER_ADDRESS times lately, logins and accepts from it wait alike.
"""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone

from accounts.login_limits import TOO_MANY_LOGINS
from accounts.models import User
from attribution_site.api.client_ip import request_client_ip
from attribution_site.api.exceptions import RateLimited
from attribution_site.api.throttling import limit_hit, limit_peek
from teams import invitations

GROUP = "login-address"  # accounts/login_limits.py's budget per address


def invitation_accept_limited(request, *, token: str, name: str, password: str) -> User:
    address = request_client_ip(request)
    rate = settings.LOGIN_RATE_LIMIT_PER_ADDRESS
    wait = limit_peek(request, group=GROUP, key=address, rate=rate)
    if wait is not None:
        raise RateLimited(wait, TOO_MANY_LOGINS)
    try:
        return invitations.invitation_accept(token=token, name=name, password=password,
                                             now=timezone.now())
    except invitations.InvitationRefused:
        limit_hit(request, group=GROUP, key=address, rate=rate)
        raise
