"""Checks other apps add to the password login (docs/teams.md, "Single sign-on" and
"Two-factor"), so that accounts runs them without importing those apps: the signin app
registers its checks at start (signin/apps.py), as the audit app hands in its recorder.

A check before the password (`before`) takes the email as typed and may refuse it whatever
the password (an organization that signs in through SSO only). A check after the password
(`after`) takes the person and the second factor sent (`otp`, None when absent) and may refuse
them: an `Unauthorized` is counted by the login limits like a wrong password, while
`SecondFactorNeeded` (nothing wrong was sent, a step is missing) is not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attribution_site.api.exceptions import Forbidden, Unauthorized

BeforePassword = Callable[[str], None]
AfterPassword = Callable[..., None]  # (user, *, otp: str | None) -> None

_before: list[BeforePassword] = []
_after: list[AfterPassword] = []


class SecondFactorNeeded(Unauthorized):
    """The password was right and the person has two-factor on, but no code came with it:
    the console asks for one in a second step, the API answers 401 naming `otp`."""


class WrongSecondFactor(Unauthorized):
    """A code or a recovery code was sent and is not good: counted like a wrong password."""

    audit_reason = "bad_otp"


class EnrolmentNeeded(Forbidden):
    """The person's organization requires two-factor and they have not enrolled yet: the API
    refuses, the console takes them through enrolment before letting them in."""

    def __init__(self, message: str, details: dict[str, Any] | None = None, *, user=None):
        super().__init__(message, details)
        self.user = user


def register(*, before: BeforePassword | None = None, after: AfterPassword | None = None) -> None:
    """Add a check (once: a second registration of the same function changes nothing)."""
    for check, checks in ((before, _before), (after, _after)):
        if check is not None and check not in checks:
            checks.append(check)


def before_password(email: str) -> None:
    for check in _before:
        check(email)


def after_password(user, *, otp: str | None) -> None:
    for check in _after:
        check(user, otp=otp)
