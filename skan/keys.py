"""Apple's published public keys for postback signatures (docs/apple.md, "Postbacks: verify,
then count once"). Pure: constants only.

SKAdNetwork signs install-validation postbacks with ECDSA and one key per version family:
- versions 1.0 and 2.0: a NIST P-192 key, published in Apple's "SKAdNetwork 2 release notes"
  (https://developer.apple.com/documentation/storekit/skadnetwork-2-release-notes);
- versions 2.1 and later: a NIST P-256 key, published in "Verifying an install-validation
  postback" (https://developer.apple.com/documentation/storekit/verifying-an-install-validation-postback).

AdAttributionKit signs its postbacks as a JWS (ES256) and names the key in the header's `kid`.
Apple publishes three keys in "Verifying a postback"
(https://developer.apple.com/documentation/adattributionkit/verifying-a-postback): the
production key (the same P-256 key as SKAdNetwork's) and two development keys, for postbacks
from end-to-end test flows and from the device's developer settings. Development-signed
postbacks are counted only when settings.SKAN_ACCEPT_DEVELOPMENT_POSTBACKS is on.

The keys are base64 DER SubjectPublicKeyInfo, as Apple prints them; `cryptography` loads them.
"""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_der_public_key

SKADNETWORK_P192 = (
    "MEkwEwYHKoZIzj0CAQYIKoZIzj0DAQEDMgAEMyHD625uvsmGq4C43cQ9BnfN2xslVT5V1nOmAMP6qaRRUll3PB1JYmgS"
    "m+62sosG"
)
SKADNETWORK_P256 = (
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEWdp8GPcGqmhgzEFj9Z2nSpQVddayaPe4FMzqM9wib1+aHaaIzoHoLN9z"
    "W4K8y4SPykE3YVK3sVqW6Af0lfx3gg=="
)

AAK_PRODUCTION_KID = "apple-cas-identifier/0"
AAK_DEVELOPMENT_KIDS = frozenset({"apple-development-identifier/0",
                                  "apple-development-identifier/1"})
AAK_KEYS = {
    AAK_PRODUCTION_KID: SKADNETWORK_P256,
    # Development postbacks from end-to-end flows.
    "apple-development-identifier/0": (
        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAELeEDzpJEP+/qRSE5hJVC1p1J0ssUnQGMzBBbvnACBok8OVGGLgxL"
        "0myrKiy6lvRtSlLRsWit87i+vftD8AEqeQ=="
    ),
    # Development postbacks generated from the device's developer settings.
    "apple-development-identifier/1": (
        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE8YzdO7eM97s/IJ25kdW5CZ3A14USE5IJ5Ha/vhWaxI6UBI1ZxCEv"
        "jrKxVluVGe6qWwF1BDFq+QHqKfH5u+wxHQ=="
    ),
}


def load(key_b64: str) -> ec.EllipticCurvePublicKey:
    key = load_der_public_key(base64.b64decode(key_b64))
    if not isinstance(key, ec.EllipticCurvePublicKey):  # Apple's keys are all EC keys
        raise ValueError("not an elliptic-curve public key")
    return key


# The key that verifies each SKAdNetwork version we accept (1.0 has no `version` field and no
# developer copies, so it is not received here).
SKADNETWORK_KEYS: dict[str, ec.EllipticCurvePublicKey] = {
    "2.0": load(SKADNETWORK_P192),
    "2.1": load(SKADNETWORK_P256),
    "2.2": load(SKADNETWORK_P256),
    "3.0": load(SKADNETWORK_P256),
    "4.0": load(SKADNETWORK_P256),
}
AAK_PUBLIC_KEYS: dict[str, ec.EllipticCurvePublicKey] = {
    kid: load(value) for kid, value in AAK_KEYS.items()
}
