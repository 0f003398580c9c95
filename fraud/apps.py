"""Fraud protection (docs/fraud.md): per-app rule settings, the request-path rules that decide
which clicks may win an install, SDK request signing, and the per-source flags beat writes."""

from django.apps import AppConfig


class FraudConfig(AppConfig):
    name = "fraud"
    verbose_name = "Fraud protection"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps_registry import request_signing
        from attribution_site.local_cache import invalidate_on_write
        from fraud import networks, selectors, services
        from fraud.models import AppFraudSettings, SigningSecret, SourceFlag

        networks.check_configuration()
        request_signing.register(services.RequestSigning)

        # Every write, wherever it is made, reaches the request path's copies.
        invalidate_on_write(AppFraudSettings, lambda row, deleted: selectors.settings_changed(
            app_id=row.app_id))
        invalidate_on_write(SourceFlag, lambda row, deleted: selectors.flooding_changed(
            app_id=row.app_id, day=row.day))
        invalidate_on_write(SigningSecret, lambda row, deleted: selectors.signing_changed(
            key_id=row.key_id))
