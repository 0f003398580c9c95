"""An organization's single sign-on connection and the domains it answers for, a person's
TOTP device and recovery codes, and an organization's two-factor rule (docs/teams.md, "Single
sign-on", "Two-factor"). Secrets (the client secret, the TOTP seed) are stored encrypted
(attribution_site/secrets.py); recovery codes only as their SHA-256."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class SsoConnection(models.Model):
    organization = models.OneToOneField("accounts.Organization", on_delete=models.CASCADE,
                                        primary_key=True, related_name="+")
    issuer = models.URLField(max_length=500)
    client_id = models.CharField(max_length=255)
    client_secret = models.TextField(blank=True)  # encrypted; "" when none was given
    default_role = models.CharField(max_length=16)
    enforce = models.BooleanField(default=False)
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.issuer


class SsoDomain(models.Model):
    """One email domain, of one organization: a domain names at most one connection, which
    is how an email typed on the login page finds its organization."""

    domain = models.CharField(max_length=253, unique=True)
    connection = models.ForeignKey(SsoConnection, on_delete=models.CASCADE,
                                   related_name="domains")

    def __str__(self) -> str:
        return self.domain


class TotpDevice(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                primary_key=True, related_name="+")
    secret = models.TextField()  # encrypted base32 seed
    confirmed_at = models.DateTimeField(null=True, blank=True)  # None: enrolling, not on
    # The time step of the last code accepted: a code is good once (RFC 6238, 5.2).
    last_step = models.BigIntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"TOTP of {self.user_id}"


class RecoveryCode(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+")
    code_hash = models.CharField(max_length=64)
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "code_hash"])]

    def __str__(self) -> str:
        return f"recovery code of {self.user_id}"


class TwoFactorRule(models.Model):
    organization = models.OneToOneField("accounts.Organization", on_delete=models.CASCADE,
                                        primary_key=True, related_name="+")
    required = models.BooleanField(default=False)
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"two-factor {'required' if self.required else 'optional'}"
