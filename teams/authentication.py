"""`Authorization: Bearer pat_…`: a personal access token as an API credential (docs/teams.md,
"Personal access tokens"). It stands before accounts' JWT check in DEFAULT_AUTHENTICATION_CLASSES
and takes only credentials with the `pat_` prefix, leaving every other one (a JWT) to it. A
refusal is the same plain 401 as a refused JWT (docs/decisions.md, "One answer for a refused
token")."""

from __future__ import annotations

from django.utils import timezone
from rest_framework.authentication import BaseAuthentication

from accounts.authentication import TOKEN_DETAILS, TOKEN_REFUSED
from attribution_site.api.exceptions import CredentialsRefused
from teams import access_tokens, credentials


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
