"""Secrets a user sees once: a new API key, a new webhook's signing secret.

The POST that creates one keeps it in the session, sealed as a stored secret
(attribution_site/secrets.py), and redirects (post/redirect/get: a reload cannot create a
second one) to a page that takes it out of the session as it renders it, marked `no-store`.
A reload of that page finds nothing and says the secret was shown already. The secret never
travels in a URL or a message, and is stored in plain text nowhere.
"""

from __future__ import annotations

import logging

from django.utils.cache import add_never_cache_headers

from attribution_site.secrets import SHOWN_ONCE, SecretUnreadable, secret_decrypt, secret_encrypt

logger = logging.getLogger(__name__)

SLOT = "console.shown-once:{}"


def keep(request, *, slot: str, secret: str) -> None:
    request.session[SLOT.format(slot)] = secret_encrypt(secret, purpose=SHOWN_ONCE)


def take(request, *, slot: str) -> str | None:
    """The secret kept under `slot`, removed from the session; None once it was taken, and
    None too when it no longer decrypts (SECRET_KEY changed between the POST and this page):
    either way it cannot be shown, and the page says how to get a new one."""
    sealed = request.session.pop(SLOT.format(slot), None)
    if not sealed:
        return None
    try:
        return secret_decrypt(sealed, purpose=SHOWN_ONCE)
    except SecretUnreadable as exc:
        logger.warning("The secret kept to show once under %s is lost: %s", slot, exc)
        return None


def no_store(response):
    """The page showing a secret stays out of every cache, the browser's history included."""
    add_never_cache_headers(response)
    return response
