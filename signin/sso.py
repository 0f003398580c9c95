"""Single sign-on through an organization's OpenID provider (docs/teams.md, "Single
sign-on"): its settings (the client secret encrypted at rest), the sign-in's start and its
callback, and the password login's check for domains that must use it.

The network calls (discovery, token, keys) happen outside any transaction; the rules of the
ID token are signin/oidc.py's, the calls signin/provider.py's.
"""

from __future__ import annotations

import hmac
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import services as accounts
from accounts.models import User
from attribution_site.api.exceptions import Conflict, Forbidden, ValidationFailed
from attribution_site.secrets import SSO_CLIENT_SECRET, secret_decrypt, secret_encrypt
from outbox import http
from signin import oidc, provider
from signin.models import SsoConnection, SsoDomain

ROLES_FOR_NEWCOMERS = (User.Role.DEVELOPER, User.Role.MARKETER, User.Role.VIEWER)
USE_SSO = ('This organization signs in with single sign-on: use "Sign in with SSO" on the '
           "console's login page.")
DOMAIN_TAKEN = "{domain} already signs in with another organization."
SECRET_NEEDED = "A client secret is needed the first time single sign-on is set up."


@dataclass(frozen=True)
class SsoSettings:
    issuer: str
    client_id: str
    client_secret_set: bool
    allowed_domains: list[str]
    default_role: str
    enforce: bool
    updated_at: datetime


def sso_settings(*, organization_id: uuid.UUID) -> SsoSettings | None:
    connection = SsoConnection.objects.filter(organization_id=organization_id).first()
    return _settings(connection) if connection is not None else None


def sso_configure(*, organization_id: uuid.UUID, issuer: str, client_id: str,
                  client_secret: str | None, allowed_domains: list[str], default_role: str,
                  enforce: bool) -> SsoSettings:
    """Set the organization's connection; a `client_secret` of None keeps the stored one."""
    issuer = issuer.strip()
    problem = issuer_problem(issuer)
    if problem:
        raise ValidationFailed("Invalid input: issuer.", {"issuer": [problem]})
    domains = _domains(allowed_domains)
    if default_role not in ROLES_FOR_NEWCOMERS:
        raise ValidationFailed("Invalid input: default_role.", {"default_role": [
            "Must be developer, marketer or viewer: an admin is made by an admin."]})
    with transaction.atomic():
        connection = (SsoConnection.objects.select_for_update()
                      .filter(organization_id=organization_id).first())
        if connection is None:
            if not client_secret:
                raise ValidationFailed("Invalid input: client_secret.",
                                       {"client_secret": [SECRET_NEEDED]})
            connection = SsoConnection(organization_id=organization_id)
        connection.issuer, connection.client_id = issuer, client_id.strip()
        connection.default_role, connection.enforce = default_role, enforce
        if client_secret:
            connection.client_secret = secret_encrypt(client_secret, purpose=SSO_CLIENT_SECRET)
        connection.updated_at = timezone.now()
        connection.save()
        taken = list(SsoDomain.objects.filter(domain__in=domains)
                     .exclude(connection=connection).values_list("domain", flat=True))
        if taken:
            raise Conflict(DOMAIN_TAKEN.format(domain=taken[0]), {"allowed_domains": [
                DOMAIN_TAKEN.format(domain=domain) for domain in sorted(taken)]})
        SsoDomain.objects.filter(connection=connection).exclude(domain__in=domains).delete()
        known = set(connection.domains.values_list("domain", flat=True))
        try:
            with transaction.atomic():
                SsoDomain.objects.bulk_create([SsoDomain(domain=domain, connection=connection)
                                               for domain in domains if domain not in known])
        except IntegrityError:  # another organization claimed one at the same moment
            raise Conflict(DOMAIN_TAKEN.format(domain=", ".join(domains))) from None
    return _settings(connection)


def sso_remove(*, organization_id: uuid.UUID) -> None:
    """Switch single sign-on off: the connection and its domains go, password logins work
    again for those domains; people who joined through it stay (without a password, they
    reset one through an operator or are removed)."""
    SsoConnection.objects.filter(organization_id=organization_id).delete()


def issuer_problem(issuer: str) -> str | None:
    """Why the service must not call `issuer`, or None (the address rule of outbox/http.py;
    plain http only to one's own machine or network, as for webhooks)."""
    if issuer.startswith("http://"):
        if not http.private_networks_allowed():
            return ("Must be an https URL. " + http.LOCAL_DESTINATIONS_HINT)
        return http.plain_http_destination_refusal(issuer)
    if not issuer.startswith("https://"):
        return "Must be an https URL, such as https://accounts.example.com."
    return http.destination_refusal(issuer)


def password_login_allowed(email: str) -> None:
    """accounts' check before the password: a domain whose organization enforces single
    sign-on cannot log in with a password, unless the person is of another organization (or
    an operator of none), whom that organization's rule does not bind."""
    connection = _connection_for(email)
    if connection is None or not connection.enforce:
        return
    person = accounts.user_by_email(email=email)
    if person is None or person.organization_id == connection.organization_id:
        raise Forbidden(USE_SSO, {"email": ["sso_required"]})


# --- Signing in ---------------------------------------------------------------------------------

def sign_in_start(*, email: str, redirect_uri: str) -> tuple[str, dict]:
    """Where to send the browser, and what to keep in its session for the callback."""
    connection = _connection_for(email)
    if connection is None:
        raise oidc.SignInRefused("no_organization")
    document = provider.metadata(connection.issuer)
    flow = oidc.Flow.new()
    url = oidc.authorization_url(endpoint=document["authorization_endpoint"],
                                 client_id=connection.client_id, redirect_uri=redirect_uri,
                                 flow=flow, login_hint=email)
    kept = {"organization_id": str(connection.organization_id), "state": flow.state,
            "nonce": flow.nonce, "code_verifier": flow.code_verifier}
    return url, kept


def sign_in_finish(*, kept: dict | None, state: str, code: str, error: str,
                   redirect_uri: str, now: datetime) -> User:
    """The person the provider's answer signs in (joined with the default role on a first
    sign-in); SignInRefused with the reason otherwise."""
    if not kept or not state or not _same(kept.get("state", ""), state):
        raise oidc.SignInRefused("bad_state")
    if error:
        raise oidc.SignInRefused("provider_refused", error[:100])
    connection = SsoConnection.objects.filter(organization_id=kept["organization_id"]).first()
    if connection is None or not code:
        raise oidc.SignInRefused("no_organization" if connection is None else "provider_refused")
    document = provider.metadata(connection.issuer)
    tokens = provider.code_exchange(
        token_endpoint=document["token_endpoint"], client_id=connection.client_id,
        client_secret=secret_decrypt(connection.client_secret, purpose=SSO_CLIENT_SECRET),
        code=code, redirect_uri=redirect_uri, code_verifier=kept["code_verifier"])
    claims = oidc.id_token_claims(
        tokens["id_token"], jwks=provider.key_set(document["jwks_uri"]),
        issuer=connection.issuer, client_id=connection.client_id, nonce=kept["nonce"],
        access_token=tokens.get("access_token"), now=int(now.timestamp()))
    email = oidc.verified_email(claims)
    allowed = set(connection.domains.values_list("domain", flat=True))
    if oidc.email_domain(email) not in allowed:
        raise oidc.SignInRefused("domain_not_allowed")
    return _person(connection, email=email, name=str(claims.get("name") or "")[:200])


def _person(connection: SsoConnection, *, email: str, name: str) -> User:
    person = accounts.user_by_email(email=email)
    if person is None:
        try:
            return accounts.member_join(organization_id=connection.organization_id,
                                        email=email, name=name, password=None,
                                        role=connection.default_role)
        except Conflict:  # the same person's other tab joined a moment before
            person = accounts.user_by_email(email=email)
    if person is None or person.organization_id != connection.organization_id \
            or not person.is_active:
        raise oidc.SignInRefused("not_a_member")
    return person


def _connection_for(email: str) -> SsoConnection | None:
    domain = SsoDomain.objects.select_related("connection").filter(
        domain=oidc.email_domain(email)).first()
    return domain.connection if domain is not None else None


def _domains(allowed: list[str]) -> list[str]:
    domains = list(dict.fromkeys(d.strip().lower().rstrip(".") for d in allowed))
    problems = [p for d in domains if (p := oidc.domain_problem(d))]
    if not domains:
        problems = ["Name at least one domain, such as example.com."]
    if problems:
        raise ValidationFailed("Invalid input: allowed_domains.", {"allowed_domains": problems})
    return domains


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def _settings(connection: SsoConnection) -> SsoSettings:
    return SsoSettings(
        issuer=connection.issuer, client_id=connection.client_id,
        client_secret_set=bool(connection.client_secret),
        allowed_domains=sorted(connection.domains.values_list("domain", flat=True)),
        default_role=connection.default_role, enforce=connection.enforce,
        updated_at=connection.updated_at)
