"""`Authorization: Bearer pat_…`: a personal access token as an API credential (docs/teams.md,
"Personal access tokens"). It stands before accounts' JWT check in DEFAULT_AUTHENTICATION_CLASSES
and takes only credentials with the `pat_` prefix, leaving every other one (a JWT) to it. A
refusal is the same plain 401 as a refused JWT (docs/decisions.md, "One answer for a refused
token")."""

from __future__ import annotations

from django.utils import timezone
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import BasePermission

from accounts.authentication import TOKEN_DETAILS, TOKEN_REFUSED
from attribution_site.api.exceptions import CredentialsRefused, Forbidden
from teams import access_tokens, credentials

LOGIN_NEEDED = ("A personal access token cannot make access tokens or change two-factor: "
                "use the token of a login (POST /api/v1/auth/login) or the console.")


class PersonalAccessTokenAuthentication(BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        scheme, _, credential = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
        credential = credential.strip()
        if scheme.lower() != "bearer" or not credentials.is_access_token(credential):
            return None
        user = access_tokens.access_token_user(token=credential, now=timezone.now())
        if user is None:
            raise CredentialsRefused(TOKEN_REFUSED, TOKEN_DETAILS)
        return user, credential

    def authenticate_header(self, request) -> str:
        # As simplejwt's: the 401's WWW-Authenticate comes from the first class, this one.
        return f'{self.keyword} realm="api"'


def by_access_token(request) -> bool:
    """Whether the request authenticated with a personal access token (its `auth` is then the
    token itself; a JWT's is simplejwt's token object)."""
    return isinstance(request.auth, str) and credentials.is_access_token(request.auth)


class NotByAccessToken(BasePermission):
    """Refuses a personal access token the methods a view lists in `login_only`: the ones that
    make a credential or change the second factor. A leaked token could otherwise make a
    longer-lived one, or enrol the person in two-factor and lock them out of their password
    login (docs/teams.md, "A token cannot make credentials")."""

    def has_permission(self, request, view) -> bool:
        if request.method in getattr(view, "login_only", ()) and by_access_token(request):
            raise Forbidden(LOGIN_NEEDED)
        return True
