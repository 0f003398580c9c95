"""The API's Bearer token check (spec: Authentication): simplejwt's JWT authentication, with
one plain answer for every token it refuses. simplejwt's own refusal carries its class names,
token types and a `messages` list, which the envelope would otherwise show to clients
(docs/decisions.md, "One answer for a refused token").
"""

from __future__ import annotations

from rest_framework.exceptions import AuthenticationFailed
from rest_framework_simplejwt.authentication import JWTAuthentication

from accounts.services import AUTH_VERSION_CLAIM
from attribution_site.api.exceptions import CredentialsRefused

TOKEN_REFUSED = "The token is invalid or expired."
TOKEN_DETAILS = {"authorization": [
    "Send a current token as `Authorization: Bearer <token>`: log in again "
    "(POST /api/v1/auth/login) for a new one."]}


class BearerTokenAuthentication(JWTAuthentication):
    """A malformed, expired or wrongly signed token, the token of a user removed or deactivated
    since, and one issued before the user's role changed, all get the same 401: which one it
    was helps no client (each is fixed by logging in again) and would tell a token thief which
    part to work on."""

    def authenticate(self, request):
        try:
            return super().authenticate(request)
        except AuthenticationFailed as exc:  # simplejwt's InvalidToken is one
            raise CredentialsRefused(TOKEN_REFUSED, TOKEN_DETAILS) from exc

    def get_user(self, validated_token):
        user = super().get_user(validated_token)
        # A token from before the claim existed carries none: version 0, which it was.
        if validated_token.get(AUTH_VERSION_CLAIM, 0) != user.auth_version:
            raise AuthenticationFailed("The token was issued before a role change.")
        return user
