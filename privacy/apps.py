"""Data-subject requests (docs/privacy.md, "Erasure and access"): OpenDSR erasure, access and
portability requests, run by a worker, answered through status callbacks sent by the outbox."""

from django.apps import AppConfig


class PrivacyConfig(AppConfig):
    name = "privacy"
    default_auto_field = "django.db.models.BigAutoField"
