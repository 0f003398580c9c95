"""Operators read conversion-schema versions in the admin; nobody edits one there, since a
version is history that postbacks decode through (a change is a new version, via the API)."""

from django.contrib import admin

from conversion.models import ConversionSchema


@admin.register(ConversionSchema)
class ConversionSchemaAdmin(admin.ModelAdmin):
    list_display = ("app", "version", "currency", "created_at")
    list_select_related = ("app",)
    search_fields = ("app__name",)
    readonly_fields = ("id", "app", "version", "currency", "document", "created_at")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
