"""OpenID Connect, the relying party's rules (docs/teams.md, "Single sign-on"): the
authorization request of the code flow with PKCE, and the checks of the ID token that comes
back. Pure: no ORM, no network, no clock (the time is passed in). Authlib does the protocol's
parts (PKCE's S256 challenge, the ID token's claims: issuer, audience, expiry, nonce, at_hash)
and joserfc, Authlib's JOSE library, the signature against the provider's published keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from authlib.common.security import generate_token
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from authlib.oidc.core import CodeIDToken
from joserfc import jwt
from joserfc.errors import (
    BadSignatureError,
    ClaimError,
    ExpiredTokenError,
    InvalidKeyIdError,
    JoseError,
)
from joserfc.jwk import KeySet

SCOPE = "openid email profile"
# Signatures with the provider's published public keys only: "none" and the HMAC family
# (keyed with the client secret, which we hold too) are never accepted.
ASYMMETRIC = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384",
              "ES512", "EdDSA")
LEEWAY_SECONDS = 60

# Why a sign-in was refused: the audit entry's reason and the page's message.
REASONS = {
    "bad_state": "The sign-in could not be matched to one started here (it expired, was "
                 "started in another browser, or was tampered with). Start again.",
    "provider_error": "The identity provider could not be reached or answered an error.",
    "provider_refused": "The identity provider did not sign you in.",
    "bad_signature": "The identity provider's answer is not signed by its keys.",
    "bad_issuer": "The identity provider's answer names another issuer.",
    "bad_audience": "The identity provider's answer was issued for another application.",
    "expired": "The identity provider's answer has expired.",
    "bad_nonce": "The identity provider's answer does not belong to this sign-in.",
    "bad_token": "The identity provider's answer is not a valid ID token.",
    "email_missing": "The identity provider did not tell your email address.",
    "email_unverified": "The identity provider has not verified your email address.",
    "domain_not_allowed": "Your email's domain is not one this organization signs in with.",
    "not_a_member": "This email belongs to a person of another organization.",
    "no_organization": "No organization signs in with single sign-on for this email's domain.",
}


class SignInRefused(Exception):
    def __init__(self, reason: str, detail: str = ""):
        self.reason = reason
        self.message = REASONS[reason] + (f" ({detail})" if detail else "")
        super().__init__(self.message)


@dataclass(frozen=True)
class Flow:
    """What the start of a sign-in keeps (in the browser's session) for its callback."""

    state: str
    nonce: str
    code_verifier: str

    @classmethod
    def new(cls) -> Flow:
        return cls(state=generate_token(32), nonce=generate_token(32),
                   code_verifier=generate_token(64))


def authorization_url(*, endpoint: str, client_id: str, redirect_uri: str, flow: Flow,
                      login_hint: str = "") -> str:
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri,
              "scope": SCOPE, "state": flow.state, "nonce": flow.nonce,
              "code_challenge": create_s256_code_challenge(flow.code_verifier),
              "code_challenge_method": "S256"}
    if login_hint:
        params["login_hint"] = login_hint
    return endpoint + ("&" if "?" in endpoint else "?") + urlencode(params)


def id_token_claims(id_token: str, *, jwks: dict, issuer: str, client_id: str, nonce: str,
                    access_token: str | None, now: int) -> dict:
    """The claims of `id_token` once its signature (one of `jwks`' keys), issuer, audience,
    expiry and nonce are checked; SignInRefused with the first reason it fails."""
    try:
        keys = KeySet.import_key_set(jwks)
    except (JoseError, ValueError, TypeError, KeyError) as exc:
        raise SignInRefused("provider_error", "its key set cannot be read") from exc
    try:
        token = jwt.decode(id_token, keys, algorithms=ASYMMETRIC)
    except (BadSignatureError, InvalidKeyIdError):
        raise SignInRefused("bad_signature") from None
    except (JoseError, ValueError) as exc:
        raise SignInRefused("bad_token", type(exc).__name__) from None
    claims = CodeIDToken(
        token.claims, token.header,
        {"iss": {"essential": True, "value": issuer},
         "aud": {"essential": True, "value": client_id}},
        {"nonce": nonce, "client_id": client_id, "access_token": access_token})
    try:
        claims.validate(now=now, leeway=LEEWAY_SECONDS)
    except ExpiredTokenError:
        raise SignInRefused("expired") from None
    except ClaimError as exc:
        reason = {"iss": "bad_issuer", "aud": "bad_audience", "azp": "bad_audience",
                  "nonce": "bad_nonce"}.get(exc.claim, "bad_token")
        raise SignInRefused(reason, "" if reason != "bad_token" else exc.claim) from None
    return dict(claims)


def verified_email(claims: dict) -> str:
    """The email the provider vouches for, lower-cased; refused when it is absent or its
    `email_verified` is not true (a provider that lets people type any address would
    otherwise sign them in as anyone)."""
    email = claims.get("email")
    if not isinstance(email, str) or "@" not in email:
        raise SignInRefused("email_missing")
    if claims.get("email_verified") is not True:
        raise SignInRefused("email_unverified")
    return email.strip().lower()


def email_domain(email: str) -> str:
    return email.rpartition("@")[2].strip().lower().rstrip(".")


def domain_problem(domain: str) -> str | None:
    """Why `domain` cannot be an allowed domain, or None."""
    labels = domain.split(".")
    if len(domain) > 253 or len(labels) < 2 or not all(
            label and len(label) <= 63 and all(ch.isalnum() or ch == "-" for ch in label)
            and label.isascii() and not label.startswith("-") and not label.endswith("-")
            for label in labels):
        return f"{domain!r} is not a domain name (such as example.com)."
    return None
