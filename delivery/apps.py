"""Postbacks and signed webhooks (spec: Postback endpoints, Webhook endpoints, Events): their
configurations, one delivery row per outbound message, its attempts, and sending. On start it
subscribes to tracking's domain events inside their transaction, so a delivery row commits (or
rolls back) with the install or event that caused it, and registers its readiness checks
(delivery/readiness.py).
"""

from django.apps import AppConfig


class DeliveryConfig(AppConfig):
    name = "delivery"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from attribution_site import domain_events, readiness
        from delivery import services
        from delivery.readiness import deliveries, delivery_workers

        subscriptions = (
            (domain_events.InstallAttributed, services.deliveries_for_installs),
            (domain_events.InstallReattributed, services.deliveries_for_reattributions),
            (domain_events.InstallReengaged, services.deliveries_for_reengagements),
            (domain_events.EventTracked, services.deliveries_for_events),
            (domain_events.InstallAttributed, services.platform_deliveries_for_installs),
            (domain_events.EventTracked, services.platform_deliveries_for_events),
        )
        for event_type, handler in subscriptions:
            domain_events.subscribe(event_type, handler)
        _invalidate_targets_on_write()
        readiness.register("deliveries", deliveries)
        readiness.register("delivery_workers", delivery_workers)


def _invalidate_targets_on_write() -> None:
    """Every write of a configuration, wherever it is made, reaches the cached targets."""
    from attribution_site.local_cache import invalidate_on_write
    from delivery import selectors
    from delivery.models import PostbackConfig, Webhook

    for model in (PostbackConfig, Webhook):
        invalidate_on_write(
            model, lambda config, deleted: selectors.delivery_targets_changed(app_id=config.app_id))
