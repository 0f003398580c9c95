"""Postbacks signed with key pairs the tests generate (never Apple's), for the versions and
forms Apple publishes no signed example of."""

from __future__ import annotations

import base64
import json

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from skan import verify


def sign_skadnetwork(body: dict, private_key: ec.EllipticCurvePrivateKey) -> dict:
    signature = private_key.sign(verify.signed_string(body).encode(), ec.ECDSA(hashes.SHA256()))
    return {**body, "attribution-signature": base64.b64encode(signature).decode()}


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign_jws(payload: dict, private_key: ec.EllipticCurvePrivateKey, *, kid: str,
             alg: str = "ES256") -> str:
    header = _b64url(json.dumps({"kid": kid, "alg": alg}).encode())
    body = _b64url(json.dumps(payload).encode())
    der = private_key.sign(f"{header}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
    r, s = decode_dss_signature(der)
    return f"{header}.{body}.{_b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


AAK_PAYLOAD = {
    "postback-identifier": "1F1D6C43-6B9A-4B0A-9A43-A1B2C3D4E5F6",
    "advertised-item-identifier": 525463029,
    "ad-network-identifier": "v9wttpbfk9.skadnetwork",
    "source-identifier": "4321",
    "did-win": True,
    "postback-sequence-index": 1,
    "conversion-type": "download",
    "impression-type": "app-impression",
    "publisher-item-identifier": 1234567891,
    "marketplace-identifier": "com.apple.AppStore",
}
