"""The API's Bearer token check (spec: Authentication): simplejwt's JWT authentication, with
one plain answer for every token it refuses. simplejwt's own refusal carries its class names,
token types and a `messages` list, which the envelope would otherwise show to clients
(docs/decisions.md, "One answer for a refused token").
"""

from __future__ import annotations

from rest_framework.exceptions import AuthenticationFailed
from rest_framework_simplejwt.authentication import JWTAuthentication

from attribution_site.api.exceptions import CredentialsRefused

TOKEN_REFUSED = "The token is invalid or expired."
TOKEN_DETAILS = {"authorization": [
    "Send a current token as `Authorization: Bearer <token>`: log in again "
    "(POST /api/v1/auth/login) for a new one."]}


class BearerTokenAuthentication(JWTAuthentication):
    """A malformed, expired or wrongly signed token, and the token of a user deleted or
    deactivated since, all get the same 401: which one it was helps no client (each is fixed by
    logging in again) and would tell a token thief which part to work on."""

    def authenticate(self, request):
        try:
            return super().authenticate(request)
        except AuthenticationFailed as exc:  # simplejwt's InvalidToken is one
            raise CredentialsRefused(TOKEN_REFUSED, TOKEN_DETAILS) from exc
