"""Writes for accounts: sign-up and credential checks (spec: Authentication endpoints)."""

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


def account_signup(*, email: str, password: str, name: str, company_name: str) -> User:
    """Create an organization and its first user, who is its admin."""
    try:
        validate_password(password)
    except DjangoValidationError as exc:
        raise ValidationFailed("Invalid input: password.", {"password": exc.messages}) from None
    if User.objects.filter(email=email).exists():
        raise Conflict(EMAIL_TAKEN, {"email": [EMAIL_TAKEN]})
    try:
        with transaction.atomic():
            organization = Organization.objects.create(name=company_name)
            user = User(email=email, name=name, role=User.Role.ADMIN, organization=organization)
            user.set_password(password)
            user.save()
    except IntegrityError:  # a concurrent sign-up with the same email won the race
        raise Conflict(EMAIL_TAKEN, {"email": [EMAIL_TAKEN]}) from None
    return user


def user_authenticate(*, email: str, password: str) -> User:
    """The user for these credentials; one message whether the email or the password is wrong."""
    user = authenticate(email=email, password=password)
    if user is None:
        raise Unauthorized(BAD_CREDENTIALS)
    return user


def access_token_issue(*, user: User) -> str:
    return str(AccessToken.for_user(user))
