"""Helpers shared by the teams tests: invitations and tokens made through the API, the clock
moved for Django's code, and a real SMTP server on loopback."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

from django.utils import timezone

INVITATIONS = "/api/v1/org/invitations"
ACCEPT = "/api/v1/auth/invitations/accept"
TOKENS = "/api/v1/auth/tokens"
PASSWORD = "a long enough password"


def invite(client, email: str, role: str = "marketer") -> dict:
    """POST an invitation; its 201 answer's data."""
    response = client.post(INVITATIONS, {"email": email, "role": role}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["data"]


def token_of(accept_url: str) -> str:
    return accept_url.split("token=", 1)[1]


def make_token(client, name: str = "nightly export", **extra) -> dict:
    response = client.post(TOKENS, {"name": name, **extra}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["data"]


def clock_moved(monkeypatch, by: timedelta) -> datetime:
    """Django's clock (`timezone.now`, what every service here reads) `by` ahead; the moment."""
    later = timezone.now() + by
    monkeypatch.setattr(timezone, "now", lambda: later)
    return later


@dataclass
class Inbox:
    """What the loopback SMTP server received."""

    messages: list[EmailMessage] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)

    async def handle_DATA(self, server, session, envelope):  # aiosmtpd's handler hook
        self.messages.append(message_from_bytes(envelope.content, policy=policy.default))
        self.arrived.set()
        return "250 Message accepted for delivery"


class RefusingServer:
    """An SMTP handler that refuses every message (a full mailbox, a policy)."""

    async def handle_DATA(self, server, session, envelope):
        return "554 Transaction failed"


__all__ = ["ACCEPT", "INVITATIONS", "PASSWORD", "TOKENS", "Inbox", "RefusingServer",
           "clock_moved", "invite", "make_token", "token_of"]
