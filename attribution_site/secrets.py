"""Secrets kept at rest: webhook and privacy-callback signing secrets, SDK request-signing
secrets, data destinations' secret access keys, ad network credentials, and the secrets the
console keeps in a session until it shows them once. Stored encrypted, so a database dump (or a
session row) alone does not reveal them (spec: Webhook, "signing secret returned once").

Each caller names its `Purpose`. The Fernet key is derived from SECRET_KEY with HKDF, whose
`info` is the purpose's own: a token is read only under the purpose it was written for, and the
key that signs JWTs is never used directly as an encryption key. A token written under a key
listed in SECRET_KEY_FALLBACKS still decrypts, which lets an operator rotate SECRET_KEY.

Tokens carry their scheme: `v2:` then the Fernet token under the purpose's key. A token without
a prefix was written before purposes existed, when every caller used one label (the webhook
purpose's, `webhook-signing-secret/v1`); it is read under that label, so every stored row keeps
decrypting without a migration (docs/decisions.md, "One secrets module, a purpose per caller").
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

# Kept from the first scheme: changing the salt would change every derived key.
HKDF_SALT = b"attribution.delivery"
LEGACY_INFO = b"webhook-signing-secret/v1"
PREFIX = "v2:"


@dataclass(frozen=True)
class Purpose:
    """What a secret is for: `info` binds the derived key to it, `what` names it in errors."""

    info: bytes
    what: str


WEBHOOK_SIGNING = Purpose(LEGACY_INFO, "a webhook's signing secret")
PRIVACY_CALLBACK_SIGNING = Purpose(b"privacy-callback-secret/v1",
                                   "a privacy request's callback signing secret")
SDK_REQUEST_SIGNING = Purpose(b"sdk-request-signing-secret/v1",
                              "an API key's request signing secret")
DESTINATION_CREDENTIALS = Purpose(b"export-destination-credentials/v1",
                                  "a data destination's secret access key")
NETWORK_CREDENTIALS = Purpose(b"ad-network-credentials/v1",
                              "an ad network integration's credentials")
SHOWN_ONCE = Purpose(b"console-shown-once/v1", "a secret waiting to be shown once")
SSO_CLIENT_SECRET = Purpose(b"sso-client-secret/v1",
                            "a single sign-on connection's client secret")
TOTP_SEED = Purpose(b"totp-seed/v1", "a person's two-factor (TOTP) seed")
PURPOSES = (WEBHOOK_SIGNING, PRIVACY_CALLBACK_SIGNING, SDK_REQUEST_SIGNING,
            DESTINATION_CREDENTIALS, NETWORK_CREDENTIALS, SHOWN_ONCE, SSO_CLIENT_SECRET,
            TOTP_SEED)


class SecretUnreadable(Exception):
    """The stored secret was encrypted under a key that is no longer configured."""


def secret_encrypt(secret: str, *, purpose: Purpose) -> str:
    token = _cipher(purpose.info, _key_material()).encrypt(secret.encode())
    return PREFIX + token.decode()


def secret_decrypt(token: str, *, purpose: Purpose) -> str:
    """The secret of a token written for `purpose`; SecretUnreadable when no configured key
    (SECRET_KEY, then SECRET_KEY_FALLBACKS) opens it."""
    info = purpose.info
    if token.startswith(PREFIX):
        token = token[len(PREFIX):]
    else:  # written before purposes: the one label every caller used then
        info = LEGACY_INFO
    try:
        return _cipher(info, _key_material()).decrypt(token.encode()).decode()
    except InvalidToken:
        raise SecretUnreadable(
            f"A stored secret cannot be decrypted: {purpose.what} was encrypted under a key "
            "that is neither SECRET_KEY nor one of SECRET_KEY_FALLBACKS.") from None


def _key_material() -> tuple[str, ...]:
    return (settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", ()))


@lru_cache(maxsize=32)
def _cipher(info: bytes, keys: tuple[str, ...]) -> MultiFernet:
    return MultiFernet([Fernet(_derive(key, info)) for key in keys])


def _derive(key: str, info: bytes) -> bytes:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=HKDF_SALT,
                   info=info).derive(key.encode())
    return base64.urlsafe_b64encode(derived)
