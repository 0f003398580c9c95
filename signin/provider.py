"""Calls to an organization's OpenID provider: its discovery document, its keys and its token
endpoint, all through the one outbound client (outbox/http.py) under its address rule, so an
issuer cannot point the service at an internal host unless OUTBOUND_ALLOW_PRIVATE_NETWORKS
allows private destinations. Plain http is for a provider on one's own machine or network
only (the client's rule for webhooks too); anywhere else the issuer must be https.
"""

from __future__ import annotations

import base64
import json
from urllib.parse import quote, urlencode

from outbox import http
from signin.oidc import SignInRefused

TIMEOUT_SECONDS = 10.0
READ_LIMIT = 512 * 1024  # a discovery document or a key set, with room to spare
DISCOVERY_PATH = "/.well-known/openid-configuration"
USER_AGENT = "attribution-sso/1.0"


def discovery_url(issuer: str) -> str:
    return issuer.rstrip("/") + DISCOVERY_PATH


def metadata(issuer: str) -> dict:
    """The provider's discovery document, which must name `issuer` as itself (OpenID
    Connect Discovery 1.0, section 4.3) and its endpoints."""
    document = _json(http.OutboundRequest("GET", discovery_url(issuer),
                                          headers=_headers()), "its discovery document")
    if document.get("issuer") != issuer:
        raise SignInRefused("provider_error",
                            f"its discovery document names the issuer "
                            f"{str(document.get('issuer'))[:200]!r}")
    for name in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
        # Web addresses only: the authorization endpoint becomes a link the browser follows.
        if not str(document.get(name, "")).startswith(("https://", "http://")):
            raise SignInRefused("provider_error", f"its discovery document has no {name}")
    return document


def key_set(jwks_uri: str) -> dict:
    return _json(http.OutboundRequest("GET", jwks_uri, headers=_headers()), "its key set")


def code_exchange(*, token_endpoint: str, client_id: str, client_secret: str, code: str,
                  redirect_uri: str, code_verifier: str) -> dict:
    """The token endpoint's answer for an authorization code (client_secret_basic)."""
    body = urlencode({"grant_type": "authorization_code", "code": code,
                      "redirect_uri": redirect_uri, "code_verifier": code_verifier}).encode()
    basic = base64.b64encode(f"{quote(client_id, safe='')}:{quote(client_secret, safe='')}"
                             .encode()).decode()
    answer = _json(http.OutboundRequest(
        "POST", token_endpoint, body=body,
        headers={**_headers(), "Content-Type": "application/x-www-form-urlencoded",
                 "Authorization": f"Basic {basic}"}), "its token endpoint", any_status=True)
    if "error" in answer or not isinstance(answer.get("id_token"), str):
        raise SignInRefused("provider_refused", str(answer.get("error", "no id_token"))[:100])
    return answer


def _headers() -> dict[str, str]:
    return {"Accept": "application/json", "User-Agent": USER_AGENT}


def _json(request: http.OutboundRequest, what: str, *, any_status: bool = False) -> dict:
    answer = http.send(request, timeout=TIMEOUT_SECONDS, read_limit=READ_LIMIT,
                       plain_http_private_only=True)
    if answer.failure is not None:
        raise SignInRefused("provider_error", f"{what}: {answer.error}")
    if not any_status and answer.status_code != 200:
        raise SignInRefused("provider_error", f"{what} answered {answer.status_code}")
    try:
        document = json.loads(answer.body)
    except ValueError:
        document = None
    if not isinstance(document, dict):
        raise SignInRefused("provider_error", f"{what} is not a JSON object")
    return document
