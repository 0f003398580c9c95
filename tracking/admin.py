"""Clicks, installs (with their decision trail) and events, read-only, usable on tables of
millions of rows: no full counts, raw ids instead of select boxes, related rows joined."""

import json

from django.contrib import admin
from django.utils.html import format_html

from attribution_site.admin_paging import ReadOnlyAdmin
from tracking.models import Click, ClickArchive, Event, Install, Reengagement


@admin.register(Click)
class ClickAdmin(ReadOnlyAdmin):
    list_display = ("id", "app", "media_source", "campaign_id", "os_family", "clicked_at")
    list_select_related = ("app",)
    search_fields = ("=id", "=advertising_id")
    raw_id_fields = ("app",)


@admin.register(ClickArchive)
class ClickArchiveAdmin(ClickAdmin):
    pass


class ReengagementInline(admin.TabularInline):
    model = Reengagement
    extra = 0
    can_delete = False
    fields = ("click_id", "media_source", "campaign_id", "clicked_at", "reengaged_at")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Install)
class InstallAdmin(ReadOnlyAdmin):
    list_display = ("id", "app", "match_type", "confidence", "media_source", "campaign_id",
                    "installed_at")
    list_filter = ("match_type", "is_organic")
    list_select_related = ("app",)
    search_fields = ("=id", "=device_id")
    raw_id_fields = ("app",)
    inlines = [ReengagementInline]
    exclude = ("decision",)

    def get_readonly_fields(self, request, obj=None):
        return [*super().get_readonly_fields(request, obj), "decision_trail"]

    @admin.display(description="Decision trail")
    def decision_trail(self, obj):
        return format_html("<pre>{}</pre>", json.dumps(obj.decision, indent=2))


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ("id", "app", "event_name", "revenue_amount", "revenue_currency",
                    "occurred_at")
    list_select_related = ("app",)
    search_fields = ("=device_id", "=event_id")
    raw_id_fields = ("app", "install")
