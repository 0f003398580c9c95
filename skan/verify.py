"""Signature checks for Apple's postbacks (docs/apple.md, "Postbacks: verify, then count
once"). Pure: no ORM, no clock; `cryptography` does the ECDSA and the DER, never code of ours.

SKAdNetwork: the signed message is the UTF-8 string of some of the postback's values, joined
with U+2063 (INVISIBLE SEPARATOR) in an order that depends on the version; `source-app-id`
(and in 4.0 `source-domain`) is included only when the postback has it; booleans are written
"true"/"false"; the conversion values are never signed. The orders come from Apple's
"Verifying an install-validation postback" (4.0), "Combining parameters for SKAdNetwork 3
postbacks" (3.0) and "Combining parameters for previous SKAdNetwork postback versions" (2.x).
The signature is base64 DER, ECDSA with SHA-256.

AdAttributionKit: the postback's `jws-string` is a compact JWS (RFC 7515) signed ES256 with the
key its header's `kid` names; the JWS signature is the raw 64-byte r||s (RFC 7518 3.4), which
`cryptography` re-encodes as DER to verify.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from skan import keys

SEPARATOR = "\u2063"
SOURCE = "source-app-id|source-domain"  # 4.0 signs whichever of the two the postback has

_V2 = ("version", "ad-network-id", "campaign-id", "app-id", "transaction-id", "redownload",
       "source-app-id")
FIELD_ORDER: dict[str, tuple[str, ...]] = {
    "2.0": _V2,
    "2.1": _V2,
    "2.2": _V2 + ("fidelity-type",),
    "3.0": _V2 + ("fidelity-type", "did-win"),
    "4.0": ("version", "ad-network-id", "source-identifier", "app-id", "transaction-id",
            "redownload", SOURCE, "fidelity-type", "did-win", "postback-sequence-index"),
}
_ONLY_IF_PRESENT = {"source-app-id", SOURCE}


def _text(value: Any) -> str:
    if isinstance(value, bool):  # before int: bool is an int in Python
        return "true" if value else "false"
    return str(value)


def signed_string(body: Mapping[str, Any]) -> str:
    """The string Apple signed for this SKAdNetwork postback (its `version` must be known)."""
    parts = []
    for name in FIELD_ORDER[body["version"]]:
        if name == SOURCE:
            value = body.get("source-app-id", body.get("source-domain"))
        else:
            value = body.get(name)
        if value is None and name in _ONLY_IF_PRESENT:
            continue
        parts.append(_text(value))
    return SEPARATOR.join(parts)


def _ecdsa_ok(key: ec.EllipticCurvePublicKey, signature_der: bytes, message: bytes) -> bool:
    try:
        key.verify(signature_der, message, ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError):  # ValueError: not a DER signature at all
        return False
    return True


def verify_skadnetwork(body: Mapping[str, Any], *,
                       public_keys: Mapping[str, ec.EllipticCurvePublicKey] | None = None
                       ) -> bool:
    """Whether Apple's `attribution-signature` signs this postback's values."""
    key = (keys.SKADNETWORK_KEYS if public_keys is None else public_keys).get(body["version"])
    if key is None:
        return False
    try:
        signature = base64.b64decode(body["attribution-signature"], validate=True)
    except (binascii.Error, ValueError):
        return False
    return _ecdsa_ok(key, signature, signed_string(body).encode("utf-8"))


@dataclass(frozen=True)
class JwsParts:
    header: dict[str, Any]
    payload: dict[str, Any]
    signing_input: bytes
    signature: bytes


class JwsMalformed(ValueError):
    """The string is not a compact JWS with JSON-object header and payload."""


def b64url_decode(text: str) -> bytes:
    if not text or "=" in text:  # compact JWS omits padding (RFC 7515 2)
        raise JwsMalformed("not base64url")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as exc:
        raise JwsMalformed("not base64url") from exc


def jws_split(jws: str) -> JwsParts:
    """Decode (not verify) a compact JWS."""
    pieces = jws.split(".")
    if len(pieces) != 3:
        raise JwsMalformed("a compact JWS has three parts")
    header_b64, payload_b64, signature_b64 = pieces
    try:
        header = json.loads(b64url_decode(header_b64))
        payload = json.loads(b64url_decode(payload_b64))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise JwsMalformed("header or payload is not JSON") from exc
    if not isinstance(header, dict) or not isinstance(payload, dict):
        raise JwsMalformed("header and payload must be JSON objects")
    return JwsParts(header=header, payload=payload,
                    signing_input=f"{header_b64}.{payload_b64}".encode("ascii"),
                    signature=b64url_decode(signature_b64))


def verify_jws(parts: JwsParts, *,
               public_keys: Mapping[str, ec.EllipticCurvePublicKey] | None = None) -> bool:
    """Whether the JWS is ES256-signed by the key its `kid` names (unknown kid: False)."""
    # The algorithm is pinned, never taken from the header ("none", HS256 with a public key
    # as the secret: the classic JWS downgrades).
    kid = parts.header.get("kid")
    if parts.header.get("alg") != "ES256" or len(parts.signature) != 64 or not isinstance(kid,
                                                                                          str):
        return False
    key = (keys.AAK_PUBLIC_KEYS if public_keys is None else public_keys).get(kid)
    if key is None:
        return False
    r = int.from_bytes(parts.signature[:32], "big")
    s = int.from_bytes(parts.signature[32:], "big")
    return _ecdsa_ok(key, encode_dss_signature(r, s), parts.signing_input)
