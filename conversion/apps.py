from django.apps import AppConfig


class ConversionConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "conversion"
    verbose_name = "Conversion-value schemas (SKAdNetwork 4)"
