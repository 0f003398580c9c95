"""OpenID providers on loopback for the sign-in tests: oidc-provider-mock (a real provider:
discovery, an authorization form, a token endpoint, keys), and `TokenIssuer`, a small provider
of our own whose ID tokens are what the test says (signed by another key, for another
audience), since the mock signs everything correctly."""

from __future__ import annotations

import html
import json
import re
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

import requests
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey

CLIENT_ID = "attribution-console"
CLIENT_SECRET = "client-secret-of-the-console"
START = "/console/sso/start"


@contextmanager
def mock_provider():
    """oidc-provider-mock on a free loopback port; yields its issuer URL."""
    from oidc_provider_mock import run_server_in_thread

    with run_server_in_thread() as server:
        yield f"http://localhost:{server.server_port}"


def configure(admin_api, *, issuer: str, domains=("example.com",), role="viewer",
              enforce=False, client_id=CLIENT_ID):
    response = admin_api.put("/api/v1/org/sso", {
        "issuer": issuer, "client_id": client_id, "client_secret": CLIENT_SECRET,
        "allowed_domains": list(domains), "default_role": role, "enforce": enforce},
        format="json")
    assert response.status_code == 200, response.content
    return response.json()["data"]["sso"]


def started(client, email: str):
    """POST the login page's SSO form; the provider's authorization URL the page goes on to
    (a refresh and a link, not a redirect: console/views/signin.py)."""
    response = client.post(START, {"email": email})
    assert response.status_code == 200, response.content
    found = re.search(r'<a href="([^"]+)">Continue</a>', response.content.decode())
    return html.unescape(found.group(1))


def callback(client, location: str):
    """Follow the provider's redirect back to the console (the test client is the browser)."""
    parts = urlsplit(location)
    return client.get(parts.path, dict(parse_qsl(parts.query)))


def approve_at_mock(authorize_url: str, *, sub: str, claims: dict) -> str:
    """Sign in at the mock as `sub` with `claims` (its user form); the redirect back."""
    issuer = "{0.scheme}://{0.netloc}".format(urlsplit(authorize_url))
    assert requests.put(f"{issuer}/users/{sub}", json=claims, timeout=10).status_code == 204
    answer = requests.post(authorize_url, data={"sub": sub}, allow_redirects=False, timeout=10)
    assert answer.status_code == 302, answer.text
    return answer.headers["Location"]


def sso_sign_in(client, *, email: str, sub: str = "", claims: dict | None = None,
                typed: str = ""):
    """The whole flow against the mock: typed email, the provider's form, the callback."""
    authorize = started(client, typed or email)
    claims = {"email": email, "email_verified": True, "name": "Signed In",
              **(claims or {})}
    return callback(client, approve_at_mock(authorize, sub=sub or email, claims=claims))


def query_of(url: str) -> dict:
    return dict(parse_qsl(urlsplit(url).query))


class TokenIssuer:
    """A provider on loopback that answers the code exchange with an ID token of the test's
    making: `claims(nonce)` gives its claims, `signing_key` signs it, `published_key` is in
    its key set."""

    def __init__(self):
        self.published_key = RSAKey.generate_key(2048, parameters={"kid": "k1"})
        self.signing_key = self.published_key
        self.claims_extra: dict = {}
        self.discovery_extra: dict = {}
        self.audience = CLIENT_ID
        self.nonce = ""
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.issuer = f"http://127.0.0.1:{self._server.server_port}"

    def id_token(self) -> str:
        now = int(time.time())
        claims = {"iss": self.issuer, "sub": "person-1", "aud": self.audience, "iat": now,
                  "exp": now + 300, "nonce": self.nonce, "email": "pat@example.com",
                  "email_verified": True, **self.claims_extra}
        return jwt.encode({"alg": "RS256", "kid": "k1"}, claims, self.signing_key)

    def _handler(self):
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _json(self, body: dict):
                raw = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_GET(self):
                if self.path == "/.well-known/openid-configuration":
                    self._json({"issuer": issuer.issuer,
                                "authorization_endpoint": f"{issuer.issuer}/authorize",
                                "token_endpoint": f"{issuer.issuer}/token",
                                "jwks_uri": f"{issuer.issuer}/jwks",
                                "id_token_signing_alg_values_supported": ["RS256"],
                                **issuer.discovery_extra})
                elif self.path == "/jwks":
                    self._json(KeySet([issuer.published_key]).as_dict(private=False))
                else:
                    self.send_error(404)

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self._json({"access_token": "opaque", "token_type": "Bearer",
                            "id_token": issuer.id_token()})

        return Handler

    def __enter__(self):
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()

    def sign_in(self, client, email: str = "pat@example.com"):
        """Start at the console, skip the (absent) form: the callback with a code and the
        state the start put in the session, the ID token carrying its nonce."""
        params = query_of(started(client, email))
        self.nonce = params["nonce"]
        return client.get("/console/sso/callback", {"code": "any", "state": params["state"]})
