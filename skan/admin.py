"""Operators read Apple's postbacks and refusals here (never edit them: they are what Apple
sent) and edit the ad network names reports show, shared and per app."""

from django.contrib import admin

from attribution_site.admin_paging import LargeTableAdmin
from skan.models import AdNetwork, AppAdNetworkName, Postback, RefusedPostback


class _ReadOnly(LargeTableAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Postback)
class PostbackAdmin(_ReadOnly):
    list_display = ("transaction_id", "postback_sequence_index", "framework", "version", "app",
                    "ad_network_id", "source_identifier", "fine_value", "coarse_value",
                    "verdict", "received_at")
    list_filter = ("framework", "version", "verdict", "received_at")
    search_fields = ("=transaction_id", "=ad_network_id", "=source_identifier")
    list_select_related = ("app",)
    ordering = ("-received_at",)


@admin.register(RefusedPostback)
class RefusedPostbackAdmin(_ReadOnly):
    list_display = ("received_at", "framework", "reason", "app_store_id", "transaction_id",
                    "detail")
    list_filter = ("framework", "reason", "received_at")
    search_fields = ("=app_store_id", "=transaction_id")
    ordering = ("-received_at",)


@admin.register(AdNetwork)
class AdNetworkAdmin(admin.ModelAdmin):
    list_display = ("network_id", "name", "updated_at")
    search_fields = ("network_id", "name")


@admin.register(AppAdNetworkName)
class AppAdNetworkNameAdmin(admin.ModelAdmin):
    list_display = ("app", "network_id", "name", "updated_at")
    search_fields = ("network_id", "name", "app__name")
    list_select_related = ("app",)
    raw_id_fields = ("app",)
