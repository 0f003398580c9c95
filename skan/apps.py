from django.apps import AppConfig


class SkanConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "skan"
    verbose_name = "Apple measurement (SKAdNetwork, AdAttributionKit)"
