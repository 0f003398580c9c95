"""The identities a data-subject request may name (OpenDSR, section 5: identity types and
formats), how each is read, and the hash an audit record keeps instead of the identity.

Pure: standard library only.
"""

from __future__ import annotations

import hashlib
import uuid

DEVICE_ID_TYPES = ("android_advertising_id", "ios_advertising_id", "ios_vendor_id")
IDENTITY_TYPES = (*DEVICE_ID_TYPES, "install_id", "customer_user_id")
IDENTITY_FORMATS = ("raw",)
MAX_VALUE_LENGTH = {"install_id": 36, "customer_user_id": 255,
                    **dict.fromkeys(DEVICE_ID_TYPES, 64)}


def identity_normalize(identity_type: str, value: str) -> str:
    """The value as the service stores it: advertising ids lower-cased (as the SDK endpoints
    store them), an install id in its canonical form, a customer id as sent (trimmed).
    ValueError when it cannot be one."""
    value = value.strip()
    if not value:
        raise ValueError("This field may not be blank.")
    if len(value) > MAX_VALUE_LENGTH[identity_type]:
        raise ValueError(f"At most {MAX_VALUE_LENGTH[identity_type]} characters.")
    if identity_type == "install_id":
        try:
            return str(uuid.UUID(value))
        except ValueError:
            raise ValueError("Must be a UUID.") from None
    if identity_type in DEVICE_ID_TYPES:
        return value.lower()
    return value


def identity_hash(identity_type: str, value: str) -> str:
    """hex SHA-256 of `type:value` (the normalized value): what the audit record keeps. The
    type is part of it, so the same string as two kinds of id hashes apart."""
    return hashlib.sha256(f"{identity_type}:{value}".encode()).hexdigest()
