"""Google Ads claims in the admin: read-only (the worker owns their state), with their
attempts."""

from django.contrib import admin

from google_ads.models import Attempt, Claim


class AttemptInline(admin.TabularInline):
    model = Attempt
    extra = 0
    can_delete = False
    fields = readonly_fields = ("number", "step", "started_at", "finished_at", "status_code",
                                "reading", "error_message", "duration_ms", "response_body")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Claim)
class ClaimAdmin(admin.ModelAdmin):
    list_display = ("install_id", "app", "state", "step", "attempts_made", "next_attempt_at",
                    "received_at", "reattributed", "cross_network")
    list_filter = ("state", "reattributed", "cross_network")
    search_fields = ("=install_id",)
    exclude = ("rdid", "ip", "user_agent", "gclid", "gbraid")
    readonly_fields = ("app", "install_id", "platform", "state", "step", "attempts_made",
                       "next_attempt_at", "lease_expires_at", "received_at", "updated_at",
                       "completed_at", "last_error", "answer", "ad_event_id", "reattributed",
                       "cross_network")
    inlines = [AttemptInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
