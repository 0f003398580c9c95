"""The Google Ads app (docs/networks.md, "Google Ads"): asks Google's App Conversion Tracking
and Remarketing API whether its ads brought an install, after the install is recorded, and
tells Google whether we credited it. On start it subscribes to tracking's InstallAttributed, so
a claim commits with the install it is about, and hands delivery the platforms' accounts and
requests for the conversions sent back (google_ads/forwarding.py).
"""

from django.apps import AppConfig


class GoogleAdsConfig(AppConfig):
    name = "google_ads"
    verbose_name = "Google Ads"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from attribution_site import domain_events
        from delivery import services as delivery_services
        from google_ads import forwarding, services

        domain_events.subscribe(domain_events.InstallAttributed, services.claims_for_installs)
        delivery_services.platform_sources_register(accounts=forwarding.accounts_of,
                                                    builder=forwarding.request_for)
