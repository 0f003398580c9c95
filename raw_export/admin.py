"""Data destinations and their runs in the admin: read-only (owners change destinations on the
API or the console; the worker owns runs), and never the secret access key or the full access
key ID."""

from django.contrib import admin

from raw_export.models import Destination, Run, RunAttempt


class ReadOnly:
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class RunInline(ReadOnly, admin.TabularInline):
    model = Run
    extra = 0
    can_delete = False
    show_change_link = True
    fields = readonly_fields = ("created_at", "trigger", "state", "attempts_made", "rows",
                                "bytes", "error_message")

    def get_queryset(self, request):
        return super().get_queryset(request).order_by("-created_at")


@admin.register(Destination)
class DestinationAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("name", "organization", "kind", "bucket", "format", "written_up_to",
                    "last_error_at")
    list_filter = ("kind", "format")
    search_fields = ("name", "bucket")
    fields = readonly_fields = ("id", "organization", "name", "kind", "bucket", "prefix",
                                "endpoint_url", "region", "path", "format", "topics",
                                "app_ids", "written_up_to", "last_error", "last_error_at",
                                "created_at", "updated_at")
    inlines = [RunInline]


class AttemptInline(ReadOnly, admin.TabularInline):
    model = RunAttempt
    extra = 0
    can_delete = False
    fields = readonly_fields = ("number", "started_at", "finished_at", "reason",
                                "error_message")


@admin.register(Run)
class RunAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("id", "destination", "trigger", "state", "attempts_made", "rows", "bytes",
                    "created_at")
    list_filter = ("state", "trigger")
    fields = readonly_fields = ("id", "destination", "trigger", "state", "attempts_made",
                                "next_attempt_at", "lease_expires_at", "topics", "rows",
                                "bytes", "hours_completed", "error_message", "created_at",
                                "completed_at")
    inlines = [AttemptInline]
