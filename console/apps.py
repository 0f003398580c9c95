"""The console (docs/console.md): server-rendered pages over the API's own selectors, services
and serializers."""

from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "console"
