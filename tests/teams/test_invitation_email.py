"""The invitation email through a real SMTP server (aiosmtpd on loopback): what it says, and
that a refusing or unreachable server loses no invitation (docs/teams.md, "Invitations")."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from aiosmtpd.controller import Controller
from django.test import Client

from teams.models import Invitation
from tests.processes import free_port
from tests.teams.helpers import INVITATIONS, Inbox, RefusingServer, token_of

pytestmark = pytest.mark.django_db


def smtp_settings(settings, port: int) -> None:
    """This test configures a mail server, as an operator would (the default has none); Django's
    test runner swaps in its in-memory backend, so the SMTP backend is named again."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_TIMEOUT = 5
    settings.DEFAULT_FROM_EMAIL = "Attribution <invites@attribution.test>"


@contextmanager
def serving(handler) -> Iterator[Controller]:
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield controller
    finally:
        controller.stop()


@pytest.fixture
def inbox(settings) -> Iterator[Inbox]:
    received = Inbox()
    with serving(received) as controller:
        smtp_settings(settings, controller.port)
        yield received


@pytest.fixture
def refusing(settings) -> Iterator[None]:
    with serving(RefusingServer()) as controller:
        smtp_settings(settings, controller.port)
        yield


def test_the_invited_person_receives_the_link_by_email(owner, owner_api, inbox):
    owner.name = "Ada Admin"
    owner.save(update_fields=["name"])
    response = owner_api.post(INVITATIONS, {"email": "mia@example.com", "role": "marketer"},
                              format="json")
    assert response.status_code == 201
    data = response.json()["data"]
    assert data["emailed"] is True
    assert inbox.arrived.wait(5)

    [mail] = inbox.messages
    assert mail["To"] == "mia@example.com"
    assert mail["From"] == "Attribution <invites@attribution.test>"
    assert mail["Subject"] == f"Join {owner.organization.name} on Attribution"
    assert mail.get_content_type() == "text/plain"
    text = mail.get_content()
    assert (f"Ada Admin (owner@example.com) invited you to join {owner.organization.name} "
            "on Attribution as a marketer.") in text
    assert data["accept_url"] in text
    assert token_of(data["accept_url"]) in text
    expires = data["invitation"]["expires_at"]  # 2026-05-08T12:30:00.123456Z
    assert f"until {expires[:10]} {expires[11:16]} UTC" in text


def test_a_refusing_mail_server_loses_no_invitation(owner_api, refusing):
    response = owner_api.post(INVITATIONS, {"email": "mia@example.com", "role": "viewer"},
                              format="json")
    assert response.status_code == 201
    data = response.json()["data"]
    assert data["emailed"] is False
    assert data["accept_url"]
    assert Invitation.objects.filter(email="mia@example.com").exists()


def test_an_unreachable_mail_server_loses_no_invitation(owner_api, settings):
    smtp_settings(settings, free_port())  # nothing listens there
    response = owner_api.post(INVITATIONS, {"email": "mia@example.com", "role": "viewer"},
                              format="json")
    assert response.status_code == 201
    assert response.json()["data"]["emailed"] is False
    assert Invitation.objects.exists()


def console_invite(owner) -> str:
    """The page an invitation made in the console leads to."""
    client = Client()
    client.force_login(owner, backend="django.contrib.auth.backends.ModelBackend")
    created = client.post("/console/invitations", {"email": "mia@example.com",
                                                   "role": "viewer"})
    assert created.status_code == 302
    return client.get(created.url).content.decode()


def test_the_console_says_the_email_left(owner, inbox):
    page = console_invite(owner)
    assert "Emailed the invitation to mia@example.com." in page
    assert inbox.arrived.wait(5)


def test_the_console_says_when_the_email_could_not_be_sent(owner, refusing):
    page = console_invite(owner)
    assert "The invitation email could not be sent" in page
    assert 'id="accept-url"' in page  # the link, to pass on by hand
