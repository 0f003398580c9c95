"""The limits on signing up and logging in (docs/decisions.md, "Sign-up and login limits"),
the one place the API and the console both call, so that they draw on one allowance.

Only failed logins count: a right password is never refused for the number of times it was
used (a script or a test run logging in again and again gets its 200, as the API reference
says), while guessing stops after LOGIN_RATE_LIMIT wrong tries for an email from one address,
or LOGIN_RATE_LIMIT_PER_ADDRESS for any emails from it. A wrong second factor (a TOTP code, a
recovery code: accounts/login_checks.py) counts as a wrong password.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.conf import settings

from accounts import login_checks, services
from accounts.models import User
from attribution_site import audit_trail
from attribution_site.api.client_ip import request_client_ip
from attribution_site.api.exceptions import RateLimited, Unauthorized
from attribution_site.api.throttling import enforce, limit_hit, limit_peek

TOO_MANY_LOGINS = "Too many login attempts; try again later."
T = TypeVar("T")


def signup_allowed(request) -> None:
    """Count a sign-up from the caller's address; a RateLimited when it has used its budget."""
    enforce(request, group="signup", key=request_client_ip(request),
            rate=settings.SIGNUP_RATE_LIMIT)


def password_login(request, *, email: str, password: str, otp: str | None = None) -> User:
    """The user for these credentials (and second factor, when theirs is on), unless this
    address or this email from it has failed too often lately; a failure is counted against
    both. A check registered before the password (single sign-on enforced) refuses first."""
    budgets = _budgets(request, email)
    _not_limited(request, budgets)
    login_checks.before_password(email)
    return _counted(request, email, budgets, lambda: _checked(
        services.user_authenticate(email=email, password=password), otp))


def second_factor_login(request, *, user: User, otp: str) -> User:
    """The console's second step: `user` gave the right password a moment ago (the console
    keeps who in the session) and now sends `otp`, drawing on the same allowance."""
    budgets = _budgets(request, user.email)
    _not_limited(request, budgets)
    return _counted(request, user.email, budgets, lambda: _checked(user, otp))


def address_attempt(request, attempt: Callable[[], T], *, refused: type[Exception]) -> T:
    """Something that is a login by another name (accepting an invitation hands out a JWT and
    a session): refused while this address has failed too often lately, and a `refused` counted
    against the address's allowance, which password logins from it share."""
    budget = (_address_budget(request),)
    _not_limited(request, budget)
    try:
        return attempt()
    except refused:
        for group, key, rate in budget:
            limit_hit(request, group=group, key=key, rate=rate)
        raise


def _address_budget(request):
    return ("login-address", request_client_ip(request), settings.LOGIN_RATE_LIMIT_PER_ADDRESS)


def _budgets(request, email: str):
    address_budget = _address_budget(request)
    return (address_budget, ("login", f"{email}|{address_budget[1]}", settings.LOGIN_RATE_LIMIT))


def _not_limited(request, budgets) -> None:
    for group, key, rate in budgets:
        wait = limit_peek(request, group=group, key=key, rate=rate)
        if wait is not None:
            raise RateLimited(wait, TOO_MANY_LOGINS)


def _checked(user: User, otp: str | None) -> User:
    login_checks.after_password(user, otp=otp)
    return user


def _counted(request, email: str, budgets, attempt) -> User:
    try:
        return attempt()
    except login_checks.SecondFactorNeeded:
        raise  # the password was right and nothing wrong was sent: a step, not a guess
    except Unauthorized as error:
        for group, key, rate in budgets:
            limit_hit(request, group=group, key=key, rate=rate)
        # Logged only when counted: the limit is what keeps a guesser from filling the log.
        audit_trail.login_failed(request, email=email,
                                 reason=getattr(error, "audit_reason", "bad_credentials"))
        raise
