"""The Apple Ads app (docs/apple.md, "Apple Ads: a correction after the waterfall"): exchanges the
AdServices token an iOS install brings for Apple's attribution record, after the install is
recorded. On start it subscribes to tracking's InstallAttributed, so a claim commits with the
install that brought the token.
"""

from django.apps import AppConfig


class AppleAdsConfig(AppConfig):
    name = "apple_ads"
    verbose_name = "Apple Ads"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apple_ads import services
        from attribution_site import domain_events

        domain_events.subscribe(domain_events.InstallAttributed, services.claims_for_installs)
