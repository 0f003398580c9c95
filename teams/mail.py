"""Sending an invitation by email, when the operator configured a mail server (EMAIL_HOST;
docs/teams.md, "Invitations"). Sent in the request that made the invitation, after it was
stored: the answer says whether the mail left, and a refused or unreachable server loses
nothing (the admin still gets the accept URL, once)."""

from __future__ import annotations

import logging
import smtplib

from django.conf import settings
from django.core.mail import EmailMessage

from teams.letters import Letter

logger = logging.getLogger(__name__)


def letter_send(*, to: str, letter: Letter) -> bool:
    """Whether the mail server took the letter; False without one configured."""
    if not settings.EMAIL_HOST:
        return False
    try:
        sent = EmailMessage(letter.subject, letter.body, to=[to]).send(fail_silently=False)
    except (smtplib.SMTPException, OSError) as exc:  # refused, unreachable, timed out
        logger.warning("The invitation email to %s was not sent: %s", to, exc)
        return False
    return sent == 1
