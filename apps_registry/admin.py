"""Operators manage apps and keys here. A key's secret hash is never shown."""

from django.contrib import admin

from apps_registry import selectors, services
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

    # Changes made here reach every process's cached redirect facts, as the API's do.
    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        selectors.app_target_changed(app_id=obj.id)

    def delete_model(self, request, obj):
        app_id = obj.id  # deleting clears it
        super().delete_model(request, obj)
        selectors.app_target_changed(app_id=app_id)

    def delete_queryset(self, request, queryset):
        app_ids = list(queryset.values_list("id", flat=True))
        super().delete_queryset(request, queryset)
        for app_id in app_ids:
            selectors.app_target_changed(app_id=app_id)


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
