"""Consent (docs/privacy.md, "Consent"): what a user agreed to share, as the SDK reports it
(AppsFlyer's two `consent_data` shapes: manual flags or the CMP's TCF string), kept as a history of
changes, and the one rule that decides what a partner may receive for that user."""

from django.apps import AppConfig


class ConsentConfig(AppConfig):
    name = "consent"
    default_auto_field = "django.db.models.BigAutoField"
