"""Conversion-value schemas (docs/apple.md, "Conversion-value schemas"): each app's schema
versions, the active one served to the SDK with the value it computes, and the SKAdNetwork
report."""

from django.apps import AppConfig


class ConversionConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "conversion"
    verbose_name = "Conversion-value schemas (SKAdNetwork 4)"

    def ready(self):
        from analytics.cost_report import skan_figures_reader_register
        from conversion.selectors import skan_campaign_figures

        # The cost report's SKAN CPI and ROAS (analytics cannot import conversion).
        skan_figures_reader_register(skan_campaign_figures)
