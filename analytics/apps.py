"""Reports (docs/analytics.md): the daily rollups beat keeps current, report queries, exports,
costs and currency rates. On start it subscribes to re-attributions, whose rollup days it queues
for a rebuild (analytics/rollups/corrections.py)."""

from django.apps import AppConfig


class AnalyticsConfig(AppConfig):
    name = "analytics"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from analytics.rollups import corrections
        from attribution_site import domain_events

        domain_events.subscribe(domain_events.InstallReattributed,
                                corrections.days_for_reattributions)
