"""The audit log's choke points (docs/teams.md, "Audit log"): where a person's change, a login,
a failed login and a token's use reach the audit app, which every app below it may call
without importing it.

The callers are few on purpose: the API's `OrganizationScopedView` (apps_registry/scoping.py)
after an unsafe method succeeded and after authentication, the console's `ConsolePage`
(console/pages.py) after a form post succeeded, and the two login views and
`password_login` (accounts/). A new view or page on those bases is recorded without a line of
its own. The audit app hands in its recorder at start (`register`); without one (the app not
installed) every call does nothing.
"""

from __future__ import annotations

from typing import Any, Protocol


class Recorder(Protocol):
    def change(self, request, *, fields: Any, answer: Any) -> None: ...

    def login(self, request, *, user, method: str) -> None: ...

    def login_failed(self, request, *, email: str, reason: str) -> None: ...

    def token_seen(self, request) -> None: ...


_recorder: Recorder | None = None


def register(recorder: Recorder | None) -> None:
    """Take the recorder of people's changes, logins and tokens' new addresses (None: stop)."""
    global _recorder
    _recorder = recorder


def change_made(request, *, fields: Any, answer: Any) -> None:
    """A person's change succeeded: `fields` is what they sent (the API's `request.data`, the
    console's form), `answer` the API's response data or the console's response, which may
    name what was created. The action and the target come from the URL the request resolved
    to."""
    if _recorder is not None:
        _recorder.change(request, fields=fields, answer=answer)


def login_succeeded(request, *, user, method: str = "password") -> None:
    """`user` was let in: a JWT or a console session is about to be handed out."""
    if _recorder is not None:
        _recorder.login(request, user=user, method=method)


def login_failed(request, *, email: str, reason: str = "bad_credentials") -> None:
    """A login for `email` (as typed) was refused for `reason`."""
    if _recorder is not None:
        _recorder.login_failed(request, email=email, reason=reason)


def token_seen(request) -> None:
    """The request authenticated with a Bearer credential (a JWT or a personal access token):
    the recorder notes its address and records its first use from a further one."""
    if _recorder is not None:
        _recorder.token_seen(request)
