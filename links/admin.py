"""Operators look at links and link domains here; people create and edit them through the API
and the console, whose services check codes, destinations and domains. An operator can switch
a link off (an abusive link, say) and remove a link domain that no link uses. The public side's
caches follow these changes on their own (links/apps.py), as they follow the API's."""

from django.contrib import admin

from attribution_site.admin_paging import LargeTableAdmin
from links.models import Link, LinkDomain

LINK_FIELDS = (
    "id", "app", "domain", "code", "name", "media_source", "campaign_id", "adset", "ad",
    "deep_link_value", "params", "ios_url", "android_url", "web_url", "og_title",
    "og_description", "og_image_url", "expires_at", "active", "created_at", "updated_at")


@admin.register(Link)
class LinkAdmin(LargeTableAdmin):
    list_display = ("code", "domain", "app", "media_source", "campaign_id", "active",
                    "expires_at", "created_at")
    list_filter = ("active", "domain", "created_at")
    search_fields = ("=id", "=code", "name", "media_source", "campaign_id")
    list_select_related = ("app", "domain")
    fields = LINK_FIELDS
    # Everything but `active`: a destination or code changed here would skip their checks.
    readonly_fields = tuple(name for name in LINK_FIELDS if name != "active")
    ordering = ("-created_at",)

    def has_add_permission(self, request):
        return False


@admin.register(LinkDomain)
class LinkDomainAdmin(admin.ModelAdmin):
    list_display = ("host", "organization", "created_at")
    list_filter = ("created_at",)
    search_fields = ("host",)
    list_select_related = ("organization",)
    fields = ("id", "host", "organization", "created_at")
    readonly_fields = fields
    actions = None  # no bulk delete: each domain is checked for links on its own page

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        # As in the API: a domain links still use would take them with it (cascade).
        if obj is not None and obj.links.exists():
            return False
        return super().has_delete_permission(request, obj)
