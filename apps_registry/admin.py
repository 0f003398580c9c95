"""Operators manage apps and keys here. A key's secret hash is never shown. An edit or a
deletion made here reaches every process's cached copy on the next request, as the API's do:
the caches follow the models themselves (apps_registry/apps.py)."""

from django.contrib import admin

from apps_registry import services
from apps_registry.models import ApiKey, App


class ApiKeyInline(admin.TabularInline):
    model = ApiKey
    extra = 0
    can_delete = False
    fields = ("id", "key_prefix", "name", "permissions", "rate_limit", "created_at",
              "last_used_at", "expires_at", "revoked_at")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False  # keys are created through the API, which shows the full key once


@admin.register(App)
class AppAdmin(admin.ModelAdmin):
    list_display = ("name", "platform", "organization", "created_at")
    list_filter = ("platform",)
    search_fields = ("name", "bundle_id", "package_name", "domain", "id")
    list_select_related = ("organization",)
    raw_id_fields = ("organization",)
    readonly_fields = ("id", "created_at", "updated_at")
    inlines = [ApiKeyInline]


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("key_prefix", "name", "app", "permissions", "rate_limit", "last_used_at",
                    "expires_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("id", "name", "app__name")
    list_select_related = ("app",)
    raw_id_fields = ("app",)
    fields = ("id", "app", "key_prefix", "name", "permissions", "rate_limit", "created_at",
              "last_used_at", "expires_at", "revoked_at")
    readonly_fields = ("id", "app", "key_prefix", "created_at", "last_used_at", "revoked_at")
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False

    @admin.action(description="Revoke selected keys (they stop working at once)")
    def revoke(self, request, queryset):
        keys = list(queryset.filter(revoked_at__isnull=True))
        for key in keys:
            services.api_key_revoke(key=key)
        self.message_user(request, f"Revoked {len(keys)} key(s).")
