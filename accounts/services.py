"""Writes for accounts: sign-up, joining an organization, and credential checks (spec:
Authentication endpoints; docs/teams.md)."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from rest_framework_simplejwt.tokens import AccessToken

from accounts.models import Organization, User
from attribution_site.api.exceptions import Conflict, Unauthorized, ValidationFailed

EMAIL_TAKEN = "An account with this email already exists."
BAD_CREDENTIALS = "Invalid email or password."
AUTH_VERSION_CLAIM = "auth_version"


def account_signup(*, email: str, password: str, name: str, company_name: str) -> User:
    """Create an organization and its first user, who is its admin."""
    _password_check(password)
    _email_free(email)
    with transaction.atomic():
        organization = Organization.objects.create(name=company_name)
        return _user_create(organization_id=organization.id, email=email, name=name,
                            password=password, role=User.Role.ADMIN)


def member_join(*, organization_id, email: str, name: str, password: str | None,
                role: str) -> User:
    """Add a person to an existing organization with `role` (an accepted invitation, a first
    single sign-on). `password` None leaves the person without one: they sign in through SSO
    only. A registered email is a Conflict (409): one person, one organization."""
    if role not in User.Role.values:
        raise ValidationFailed("Invalid input: role.", {"role": [f"Unknown role {role!r}."]})
    if password is not None:
        _password_check(password)
    _email_free(email)
    return _user_create(organization_id=organization_id, email=email, name=name,
                        password=password, role=role)


def _password_check(password: str) -> None:
    try:
        validate_password(password)
    except DjangoValidationError as exc:
        raise ValidationFailed("Invalid input: password.", {"password": exc.messages}) from None


def _email_free(email: str) -> None:
    if user_by_email(email=email) is not None:
        raise Conflict(EMAIL_TAKEN, {"email": [EMAIL_TAKEN]})


def _user_create(*, organization_id, email: str, name: str, password: str | None,
                 role: str) -> User:
    user = User(email=email.strip().lower(), name=name, role=role,
                organization_id=organization_id)
    user.set_password(password)  # None: an unusable password
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:  # a concurrent sign-up or join with the same email won the race
        raise Conflict(EMAIL_TAKEN, {"email": [EMAIL_TAKEN]}) from None
    return user


def user_authenticate(*, email: str, password: str) -> User:
    """The user for these credentials; one message whether the email or the password is wrong."""
    user = authenticate(email=email, password=password)
    if user is None:
        raise Unauthorized(BAD_CREDENTIALS)
    return user


def user_by_email(*, email: str) -> User | None:
    """The person with this email (any case), or None: one person, one organization, so
    sign-up, joining, invitations and single sign-on all look people up so."""
    return User.objects.filter(email=email.strip().lower()).first()


def access_token_issue(*, user: User) -> str:
    """A JWT for `user`, carrying the `auth_version` it is good for (accounts/authentication.py
    refuses it once a role change or a removal has raised the user's)."""
    token = AccessToken.for_user(user)
    token[AUTH_VERSION_CLAIM] = user.auth_version
    return str(token)
