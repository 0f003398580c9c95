"""The outbox as a Django app (docs/outbox.md): it has no tables of its own (outbox.models is
abstract), and is an app so that Celery finds its one sweep task (outbox/tasks.py) and so that,
when Django starts, every app's `enqueue` module declares its kinds (outbox.kind), the way the
admin finds every app's `admin` module.
"""

from django.apps import AppConfig
from django.utils.module_loading import autodiscover_modules


class OutboxConfig(AppConfig):
    name = "outbox"

    def ready(self) -> None:
        autodiscover_modules("enqueue")
