"""Secrets a user sees once: a new API key, a new webhook's signing secret.

The POST that creates one keeps it in the session, sealed with the key that seals webhook
secrets at rest (delivery.crypto), and redirects (post/redirect/get: a reload cannot create a
second one) to a page that takes it out of the session as it renders it, marked `no-store`.
A reload of that page finds nothing and says the secret was shown already. The secret never
travels in a URL or a message, and is stored in plain text nowhere.
"""

from __future__ import annotations

from django.utils.cache import add_never_cache_headers

from delivery import crypto

SLOT = "console.shown-once:{}"


def keep(request, *, slot: str, secret: str) -> None:
    request.session[SLOT.format(slot)] = crypto.secret_encrypt(secret)


def take(request, *, slot: str) -> str | None:
    """The secret kept under `slot`, removed from the session; None once it was taken."""
    sealed = request.session.pop(SLOT.format(slot), None)
    return crypto.secret_decrypt(sealed) if sealed else None


def no_store(response):
    """The page showing a secret stays out of every cache, the browser's history included."""
    add_never_cache_headers(response)
    return response
