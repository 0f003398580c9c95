"""The networks app (docs/networks.md): Meta and Google Ads, one home per platform
(`meta/`, `google/`), with each app's settings for them (secrets encrypted, read through cached
selectors), their referrers read before the waterfall (`referrers.py`), Google's claims after an
install (an outbox kind), the conversions sent back to both (`forwarding.py`, carried by
delivery), and the ad spend pulled from Meta, Google Ads, TikTok and Apple Ads (`spend/`, an
outbox kind).

On start: every write of a configuration drops the app's cached integrations, Google's claims
subscribe to tracking's InstallAttributed (so a claim commits with the install it is about), and
tracking is handed the reader of the networks' referrers of an install (networks imports
tracking, never the other way).
"""

from django.apps import AppConfig


class NetworksConfig(AppConfig):
    name = "networks"
    verbose_name = "Ad networks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from attribution_site import domain_events
        from attribution_site.local_cache import invalidate_on_write
        from networks import referrers, selectors
        from networks.google import claims
        from networks.models import GoogleAdsConfig, MetaConfig
        from networks.spend import enqueue as _spend_kind  # noqa: F401 - declares the kind
        from tracking import services as tracking_services

        # Every write, whoever makes it (the API, the console, the admin, a cascade), drops the
        # app's cached integrations in every process.
        for model in (MetaConfig, GoogleAdsConfig):
            invalidate_on_write(
                model, lambda config, deleted: selectors.integrations_changed(app_id=config.app_id))
        domain_events.subscribe(domain_events.InstallAttributed, claims.claims_for_installs)
        tracking_services.platform_evidence_reader_register(referrers.platform_evidence)
