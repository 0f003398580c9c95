"""Operators see postback and webhook configurations and every delivery with its attempts,
and can redeliver failed deliveries (through the service the workers use). Switching a
configuration off or deleting it here reaches every process's cached delivery targets on the
next install, as the API's changes do: the cache follows the models (delivery/apps.py). A
webhook's secret is never shown; response bodies are shown escaped, as text. The delivery and
attempt lists count no whole table (attribution_site/admin_paging.py): both grow with every
install.
"""

from django.contrib import admin, messages
from django.utils.html import format_html

from attribution_site.admin_paging import LargeTableAdmin
from delivery import services
from delivery.models import Delivery, DeliveryAttempt, PostbackConfig, State, Webhook


@admin.register(PostbackConfig)
class PostbackConfigAdmin(admin.ModelAdmin):
    list_display = ("media_source", "app", "http_method", "events", "active", "created_at")
    list_filter = ("active", "http_method")
    search_fields = ("media_source", "app__name", "id")
    list_select_related = ("app",)
    # URLs are checked against the address rules by the API; here only `active` changes.
    fields = ("id", "app", "media_source", "postback_url", "http_method", "events", "active",
              "created_at", "updated_at")
    readonly_fields = ("id", "app", "media_source", "postback_url", "http_method", "events",
                       "created_at", "updated_at")

    def has_add_permission(self, request):
        return False


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    list_display = ("url", "app", "events", "active", "created_at")
    list_filter = ("active",)
    search_fields = ("url", "app__name", "id")
    list_select_related = ("app",)
    fields = ("id", "app", "url", "events", "active", "created_at", "updated_at")
    readonly_fields = ("id", "app", "url", "events", "created_at", "updated_at")

    def has_add_permission(self, request):
        return False  # the secret is shown once, by the API that creates the webhook


class AttemptInline(admin.TabularInline):
    model = DeliveryAttempt
    extra = 0
    can_delete = False
    fields = ("number", "started_at", "http_method", "url", "status_code", "succeeded",
              "error_message", "duration_ms", "body_text")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description="response body")
    def body_text(self, attempt):
        return format_html("<pre style='white-space:pre-wrap'>{}</pre>", attempt.response_body)


@admin.register(Delivery)
class DeliveryAdmin(LargeTableAdmin):
    list_display = ("id", "kind", "event_type", "app", "state", "attempts_made",
                    "next_attempt_at", "is_test", "created_at")
    list_filter = ("state", "kind", "event_type", "is_test")
    search_fields = ("id", "source_id")
    list_select_related = ("app",)
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in Delivery._meta.fields]
    inlines = [AttemptInline]
    actions = ["redeliver"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.action(description="Redeliver selected failed deliveries (one more attempt each)")
    def redeliver(self, request, queryset):
        ids = list(queryset.filter(state=State.FAILED).values_list("id", flat=True))
        count = services.deliveries_redeliver(delivery_ids=ids)
        skipped = queryset.count() - count
        self.message_user(request, f"Queued {count} deliveries for another attempt."
                          + (f" Skipped {skipped} that had not failed." if skipped else ""),
                          messages.SUCCESS if count else messages.WARNING)


@admin.register(DeliveryAttempt)
class DeliveryAttemptAdmin(LargeTableAdmin):
    list_display = ("delivery", "kind", "number", "status_code", "succeeded", "started_at",
                    "duration_ms")
    list_filter = ("kind", "succeeded")
    search_fields = ("delivery__id", "url")
    list_select_related = ("delivery",)
    date_hierarchy = "started_at"
    exclude = ("response_body",)
    readonly_fields = ("delivery", "app", "kind", "number", "http_method", "url", "status_code",
                       "body_text", "error_message", "succeeded", "duration_ms", "started_at",
                       "finished_at")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="response body")
    def body_text(self, attempt):
        return format_html("<pre style='white-space:pre-wrap'>{}</pre>", attempt.response_body)
