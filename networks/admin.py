"""Operators see which apps have which integration, never a secret (only its last 4
characters); secrets are entered through the API or the console, which encrypt them."""

from django.contrib import admin

from integrations.models import GoogleAdsConfig, MetaConfig


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
