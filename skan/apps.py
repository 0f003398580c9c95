"""Apple's postback copies (docs/apple.md): SKAdNetwork and AdAttributionKit postbacks received
at Apple's well-known paths, verified and kept, and the ad networks' names."""

from django.apps import AppConfig


class SkanConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "skan"
    verbose_name = "Apple measurement (SKAdNetwork, AdAttributionKit)"
