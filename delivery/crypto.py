"""Webhook signing secrets (spec: Webhook, "signing secret returned once"): generated here and
stored encrypted, so a database dump alone does not reveal them.

The encryption key is derived from SECRET_KEY with HKDF (a purpose-specific key, so the secret
used to sign JWTs is never used directly as an encryption key). Secrets encrypted under a key
listed in SECRET_KEY_FALLBACKS still decrypt, which lets an operator rotate SECRET_KEY; see
docs/delivery.md.
"""

from __future__ import annotations

import base64
import secrets
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

from delivery.payloads import SECRET_PREFIX

SECRET_BYTES = 32
HKDF_SALT = b"attribution.delivery"
HKDF_INFO = b"webhook-signing-secret/v1"


class SecretUnreadable(Exception):
    """The stored secret was encrypted under a key that is no longer configured."""


def secret_generate() -> str:
    """A Standard Webhooks secret: whsec_ followed by 32 random bytes in base64."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def secret_encrypt(secret: str) -> str:
    return _cipher(_key_material()).encrypt(secret.encode()).decode()


def secret_decrypt(token: str) -> str:
    try:
        return _cipher(_key_material()).decrypt(token.encode()).decode()
    except InvalidToken:
        raise SecretUnreadable(
            "The webhook secret cannot be decrypted with SECRET_KEY or SECRET_KEY_FALLBACKS."
        ) from None


def _key_material() -> tuple[str, ...]:
    return (settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", ()))


@lru_cache(maxsize=8)
def _cipher(keys: tuple[str, ...]) -> MultiFernet:
    return MultiFernet([Fernet(_derive(key)) for key in keys])


def _derive(key: str) -> bytes:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=HKDF_SALT,
                   info=HKDF_INFO).derive(key.encode())
    return base64.urlsafe_b64encode(derived)
