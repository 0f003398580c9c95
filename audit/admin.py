"""Operators read the audit log of every organization, failed logins for unknown emails
included; no one adds, changes or deletes an entry here (only retention deletes)."""

from django.contrib import admin

from attribution_site.admin_paging import ReadOnlyAdmin
from audit.models import Entry


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "action", "actor_email", "target", "ip", "organization_id")
    list_filter = ("action",)
    search_fields = ("actor_email", "action", "target", "=organization_id")
    ordering = ("-created_at", "-id")
