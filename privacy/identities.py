"""The identities a data-subject request may name (OpenDSR, section 5: identity types and
formats), how each is read, and the hash an audit record keeps instead of the identity.

Pure: standard library only.
"""

from __future__ import annotations

import hashlib
import re
import uuid

DEVICE_ID_TYPES = ("android_advertising_id", "ios_advertising_id", "ios_vendor_id")
# A browser's web id (docs/web.md): a web app's install has it as its device id.
WEB_ID = "web_id"
IDENTITY_TYPES = (*DEVICE_ID_TYPES, "install_id", "customer_user_id", WEB_ID)
IDENTITY_FORMATS = ("raw",)
MAX_VALUE_LENGTH = {"install_id": 36, "customer_user_id": 255, WEB_ID: 36,
                    **dict.fromkeys(DEVICE_ID_TYPES, 64)}
# An advertising id (GAID, IDFA) or vendor id (IDFV) is a UUID written 8-4-4-4-12, as the
# devices hand it out and the SDKs send it. Anything else names no device: refused when the
# request is filed, rather than run and reported "completed" with nothing found.
_ADVERTISING_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ADVERTISING_ID_MESSAGE = ("Must be a device's advertising id: a UUID written like "
                          "3f1c2a9e-0d4b-4e8f-9a61-5b7c8d9e0f12.")
ZEROED_ID_MESSAGE = ("The zeroed id is what a device without tracking consent sends; it names "
                     "no device, and installs never keep it.")


def identity_normalize(identity_type: str, value: str) -> str:
    """The value as the service stores it: advertising ids lower-cased (as the SDK endpoints
    store them), an install id in its canonical form, a customer id as sent (trimmed).
    ValueError, with the message for the person who typed it, when it cannot be one."""
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
        return device_id_normalize(value)
    if identity_type == WEB_ID:
        try:
            return str(uuid.UUID(value))
        except ValueError:
            raise ValueError("Must be a web id: the UUID the web script keeps in _attr_wid."
                             ) from None
    return value


def device_id_normalize(value: str) -> str:
    """An advertising or vendor id, lower-cased as the SDK endpoints store it. ValueError when
    it cannot be one."""
    value = value.strip().lower()
    if not _ADVERTISING_ID.fullmatch(value):
        raise ValueError(ADVERTISING_ID_MESSAGE)
    if set(value) <= {"0", "-"}:
        raise ValueError(ZEROED_ID_MESSAGE)
    return value


def identity_hash(identity_type: str, value: str) -> str:
    """hex SHA-256 of `type:value` (the normalized value): what the audit record keeps. The
    type is part of it, so the same string as two kinds of id hashes apart."""
    return hashlib.sha256(f"{identity_type}:{value}".encode()).hexdigest()
