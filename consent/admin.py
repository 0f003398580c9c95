"""The consent history in the admin (docs/privacy.md, "The history"), read-only: a row is what
a user said, changed only by the API and the SDKs, and removed only by an erasure request
(privacy/), so nothing here adds, edits or deletes one. The list counts no whole table
(attribution_site/admin_paging.py): it grows with every consent change."""

from __future__ import annotations

from django.contrib import admin

from attribution_site.admin_paging import ReadOnlyAdmin
from consent.consent_data import MANUAL, SHARING_ALL, TCF
from consent.models import ConsentRecord


class _FixedValuesFilter(admin.SimpleListFilter):
    """A filter over a column's known values. Django's filter for a plain text column would
    read them with a SELECT DISTINCT over the whole table on every page."""

    # query-string value -> (label, the column's value)
    values: dict[str, tuple[str, str]] = {}

    def lookups(self, request, model_admin):
        return [(key, label) for key, (label, _) in self.values.items()]

    def queryset(self, request, queryset):
        if self.value() not in self.values:
            return queryset
        return queryset.filter(**{self.parameter_name: self.values[self.value()][1]})


class SourceFilter(_FixedValuesFilter):
    title = "source"
    parameter_name = "source"
    values = {MANUAL: ("manual", MANUAL), TCF: ("TCF", TCF)}


class SharingFilterFilter(_FixedValuesFilter):
    title = "sharing filter"
    parameter_name = "sharing_filter"
    values = {SHARING_ALL: ("all (no partner)", SHARING_ALL), "none": ("none", "")}


@admin.register(ConsentRecord)
class ConsentRecordAdmin(ReadOnlyAdmin):
    list_display = ("applies_from", "app", "install_id", "device_id", "gdpr_applies",
                    "ad_user_data", "ad_personalization", "sharing_filter", "source",
                    "recorded_at")
    list_filter = ("app", "gdpr_applies", "ad_user_data", "ad_personalization",
                   SharingFilterFilter, SourceFilter)
    list_select_related = ("app",)
    search_fields = ("=device_id", "=install_id")
    # Ids are UUIDv7, so the newest recorded row comes first and the primary key's index
    # serves the order: no other index leads with a time, and sorting the table per page is
    # the full scan this list avoids.
    ordering = ("-id",)
    fields = (
        "id", "app", "install_id", "device_id", "applies_from", "recorded_at", "gdpr_applies",
        "ad_user_data", "ad_personalization", "sharing_filter", "source", "tcf_policy_version",
        "tcf_cmp_id", "tcf_purposes_consent", "tcf_vendor_755", "tcstring")
