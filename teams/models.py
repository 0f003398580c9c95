"""Invitations to an organization and personal access tokens (docs/teams.md, "Invitations",
"Personal access tokens"). Each secret is stored as its SHA-256 only (teams/credentials.py).

An invitation is a pending one: accepting or revoking it deletes the row, and beat deletes the
expired ones (teams/tasks.py), so a row is what may still be accepted once its expiry is
checked. A token belongs to its person and cascades with them: a removed member's tokens go
with their row.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from accounts.models import Organization, User


class Invitation(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="+")
    email = models.EmailField()  # lower-cased, as accounts stores the login
    role = models.CharField(max_length=16, choices=User.Role.choices)
    token_digest = models.CharField(max_length=64, unique=True)
    # By value: the inviter may be removed before the invitation is accepted.
    invited_by_email = models.EmailField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["organization", "email"],
                                               name="teams_one_invitation_per_email")]

    def __str__(self) -> str:
        return f"{self.email} ({self.role})"


class AccessToken(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16)
    token_digest = models.CharField(max_length=64, unique=True)
    # The person's auth_version when it was made: a role change since ends it.
    auth_version = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(db_index=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.name})"
