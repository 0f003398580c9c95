"""Organizations and their users (spec: User, Organization).

Email is the login and is stored lower-cased, so uniqueness is case-insensitive. Operators made
with `createsuperuser` have no organization: they use /admin/, not the API. What each role may do
is the permission rule's table (attribution_site/capabilities.py, docs/teams.md).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.db import models
from django.utils import timezone
from django.utils.crypto import salted_hmac

from attribution_site import capabilities

SESSION_HASH_SALT = "django.contrib.auth.models.AbstractBaseUser.get_session_auth_hash"


class Organization(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.name


class UserManager(BaseUserManager):
    """What `createsuperuser` needs; API sign-ups go through accounts.services."""

    use_in_migrations = True

    def create_user(self, email, password=None, **extra):
        user = self.model(email=email.strip().lower(), **extra)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email, password=None, **extra):
        extra.update(is_staff=True, is_superuser=True)
        return self.create_user(email, password, **extra)


class User(AbstractBaseUser, PermissionsMixin):
    class Role(models.TextChoices):
        ADMIN = capabilities.ADMIN
        DEVELOPER = capabilities.DEVELOPER
        MARKETER = capabilities.MARKETER
        VIEWER = capabilities.VIEWER

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    email = models.EmailField(unique=True)
    name = models.CharField(max_length=200, blank=True)
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.VIEWER)
    organization = models.ForeignKey(
        Organization, null=True, blank=True, on_delete=models.CASCADE, related_name="users"
    )
    is_active = models.BooleanField(default=True)
    is_staff = models.BooleanField(default=False)
    date_joined = models.DateTimeField(default=timezone.now)
    # Raised when the person's role changes or they are removed: every JWT carries the value it
    # was issued under and the console's session hash is made from it, so both stop on the next
    # request (docs/teams.md, "Revocation").
    auth_version = models.PositiveIntegerField(default=0)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: list[str] = []

    def __str__(self) -> str:
        return self.email

    def get_session_auth_hash(self):
        """Django's session hash (an HMAC of the password) with `auth_version` in it, so that a
        console session started before a role change or a removal no longer verifies."""
        return self._session_hash(secret=None)

    def get_session_auth_fallback_hash(self):
        for fallback_secret in settings.SECRET_KEY_FALLBACKS:
            yield self._session_hash(secret=fallback_secret)

    def _session_hash(self, *, secret):
        # Version 0 hashes exactly what Django does, so sessions open at the upgrade stay open.
        value = self.password if not self.auth_version else f"{self.password}|{self.auth_version}"
        return salted_hmac(SESSION_HASH_SALT, value, secret=secret, algorithm="sha256").hexdigest()
