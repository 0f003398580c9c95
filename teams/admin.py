"""Operators see invitations and tokens read-only: never a secret (only digests are stored),
and a change is made by the organization's admins or the token's person."""

from django.contrib import admin

from teams.models import AccessToken, Invitation


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Invitation)
class InvitationAdmin(ReadOnly):
    list_display = ("email", "role", "organization", "invited_by_email", "created_at",
                    "expires_at")
    exclude = ("token_digest",)


@admin.register(AccessToken)
class AccessTokenAdmin(ReadOnly):
    list_display = ("prefix", "name", "user", "created_at", "expires_at", "last_used_at")
    exclude = ("token_digest",)
