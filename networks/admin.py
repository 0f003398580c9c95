"""The networks in the admin. Operators see which apps have which integration, never a secret
(only its last 4 characters; secrets are entered through the API or the console, which encrypt
them), and Google Ads claims, read-only (the worker owns their state), with their attempts."""

from django.contrib import admin

from networks.models import GoogleAdsConfig, GoogleClaim, GoogleClaimAttempt, MetaConfig


@admin.register(MetaConfig)
class MetaConfigAdmin(admin.ModelAdmin):
    list_display = ("app", "meta_app_id", "decryption_key_last4", "access_token_last4",
                    "view_window_hours", "updated_at")
    search_fields = ("app__name", "meta_app_id")
    list_select_related = ("app",)
    fields = ("app", "meta_app_id", "decryption_key_last4", "access_token_last4",
              "event_mapping", "view_window_hours", "created_at", "updated_at")
    readonly_fields = fields

    def has_add_permission(self, request):
        return False


@admin.register(GoogleAdsConfig)
class GoogleAdsConfigAdmin(admin.ModelAdmin):
    list_display = ("app", "link_id_last4", "updated_at")
    search_fields = ("app__name",)
    list_select_related = ("app",)
    fields = ("app", "link_id_last4", "event_mapping", "created_at", "updated_at")
    readonly_fields = fields

    def has_add_permission(self, request):
        return False


class AttemptInline(admin.TabularInline):
    model = GoogleClaimAttempt
    extra = 0
    can_delete = False
    fields = readonly_fields = ("number", "step", "started_at", "finished_at", "status_code",
                                "reading", "error_message", "duration_ms", "response_body")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(GoogleClaim)
class GoogleClaimAdmin(admin.ModelAdmin):
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
