"""Data-subject requests in the admin: read-only (the worker owns their state), with their run
(its tries and their errors), their status callbacks and each callback's attempts; the
identity, the request body and the callback secret are never shown, only the identity's
hash."""

from django.contrib import admin

from privacy.models import (
    RequestRun,
    RequestRunAttempt,
    StatusCallback,
    StatusCallbackAttempt,
    SubjectRequest,
)


class ReadOnly:
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class CallbackInline(ReadOnly, admin.TabularInline):
    model = StatusCallback
    extra = 0
    can_delete = False
    show_change_link = True
    fields = readonly_fields = ("url", "state", "attempts_made", "next_attempt_at",
                                "completed_at")


class RunInline(ReadOnly, admin.TabularInline):
    model = RequestRun
    extra = 0
    can_delete = False
    show_change_link = True
    fields = readonly_fields = ("state", "attempts_made", "next_attempt_at", "last_error",
                                "completed_at")


@admin.register(SubjectRequest)
class SubjectRequestAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("id", "app", "request_type", "status", "source", "received_time",
                    "completed_at")
    list_filter = ("status", "request_type", "source")
    search_fields = ("=id", "=identity_hash")
    fields = readonly_fields = ("id", "app", "request_type", "status", "source",
                                "identity_type", "identity_hash", "submitted_time",
                                "received_time", "expected_completion_time", "started_at",
                                "completed_at", "api_version", "status_callback_urls", "found",
                                "requested_by")
    inlines = [RunInline, CallbackInline]


class RunAttemptInline(ReadOnly, admin.TabularInline):
    model = RequestRunAttempt
    extra = 0
    can_delete = False
    fields = readonly_fields = ("number", "started_at", "finished_at", "error_message")


@admin.register(RequestRun)
class RequestRunAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("request", "state", "attempts_made", "next_attempt_at", "last_error")
    list_filter = ("state",)
    fields = readonly_fields = ("request", "state", "attempts_made", "next_attempt_at",
                                "lease_expires_at", "updated_at", "completed_at", "last_error")
    inlines = [RunAttemptInline]


class AttemptInline(ReadOnly, admin.TabularInline):
    model = StatusCallbackAttempt
    extra = 0
    can_delete = False
    fields = readonly_fields = ("number", "started_at", "finished_at", "status_code",
                                "error_message", "duration_ms", "response_body")


@admin.register(StatusCallback)
class StatusCallbackAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("id", "request", "url", "state", "attempts_made", "next_attempt_at")
    list_filter = ("state",)
    fields = readonly_fields = ("id", "request", "url", "body", "state", "attempts_made",
                                "next_attempt_at", "lease_expires_at", "created_at",
                                "updated_at", "completed_at")
    inlines = [AttemptInline]
