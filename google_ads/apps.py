"""The Google Ads app (docs/networks.md, "Google Ads"): asks Google's App Conversion Tracking
and Remarketing API whether its ads brought an install, after the install is recorded, and
tells Google whether we credited it. On start it subscribes to tracking's InstallAttributed, so
a claim commits with the install it is about.
"""

from django.apps import AppConfig


class GoogleAdsConfig(AppConfig):
    name = "google_ads"
    verbose_name = "Google Ads"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from attribution_site import domain_events
        from google_ads import services

        domain_events.subscribe(domain_events.InstallAttributed, services.claims_for_installs)
