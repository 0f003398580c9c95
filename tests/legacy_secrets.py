"""Stored secrets as the code before purposes wrote them, built from the algorithm itself (not
from attribution_site.secrets), so a caller's test proves that rows stored then still decrypt:
Fernet under HKDF-SHA256(SECRET_KEY, salt "attribution.delivery", info
"webhook-signing-secret/v1") for every caller, and no prefix on the token."""

from __future__ import annotations

import base64

from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

# A SECRET_KEY this server never had: what it sealed cannot be read here.
FOREIGN_KEY = "a-secret-key-this-server-never-had-000000000000"


def legacy_token(secret: str, *, key: str | None = None) -> str:
    """The token the old code stored for `secret` under `key` (SECRET_KEY by default)."""
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"attribution.delivery",
                   info=b"webhook-signing-secret/v1").derive((key or settings.SECRET_KEY).encode())
    return Fernet(base64.urlsafe_b64encode(derived)).encrypt(secret.encode()).decode()
