"""The invitation email's text (docs/teams.md, "Invitations"). Pure: standard library only."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True)
class Letter:
    subject: str
    body: str


def invitation_letter(*, inviter: str, organization: str, role: str, accept_url: str,
                      expires_at: datetime) -> Letter:
    """Plain text: who invites, to which organization, as what, the link and until when."""
    until = expires_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    body = (
        f"{inviter} invited you to join {organization} on Attribution as a {role}.\n\n"
        f"Open this link to choose your name and password:\n\n{accept_url}\n\n"
        f"The link works once, until {until}. If you did not expect this invitation, "
        "ignore this email: nothing happens without the link.\n")
    return Letter(subject=f"Join {organization} on Attribution", body=body)
