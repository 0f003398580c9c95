"""Operators maintain currency rates, an app's report currency and ad cost rows here. Rollups
are derived data and are not edited by hand (rebuild them with `manage.py analytics_refresh`)."""

from django.contrib import admin

from analytics.models import AppReportSettings, CampaignCost, CurrencyRate, RollupState


@admin.register(CurrencyRate)
class CurrencyRateAdmin(admin.ModelAdmin):
    list_display = ("currency", "day", "units_per_usd", "updated_at")
    list_filter = ("currency",)
    search_fields = ("currency",)
    date_hierarchy = "day"
    readonly_fields = ("updated_at",)


@admin.register(AppReportSettings)
class AppReportSettingsAdmin(admin.ModelAdmin):
    list_display = ("app", "currency")
    search_fields = ("app__name", "app__id")
    raw_id_fields = ("app",)


@admin.register(CampaignCost)
class CampaignCostAdmin(admin.ModelAdmin):
    list_display = ("app", "day", "media_source", "campaign_id", "cost", "currency")
    list_filter = ("media_source", "currency")
    search_fields = ("media_source", "campaign_id", "app__name")
    date_hierarchy = "day"
    raw_id_fields = ("app",)
    list_select_related = ("app",)
    readonly_fields = ("updated_at",)


@admin.register(RollupState)
class RollupStateAdmin(admin.ModelAdmin):
    list_display = ("data_through",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
