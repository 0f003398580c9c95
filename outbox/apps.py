"""The outbox (docs/outbox.md): the one cycle of every outbound call (claim with a lease, record,
retry, sweep), the abstract work and attempt rows, the kinds' registry and the one outbound
client. It has no tables of its own (outbox.models is abstract), and is an app so that Celery
finds its one sweep task (outbox/tasks.py) and so that, when Django starts, every app's
`enqueue` module declares its kinds (outbox.kind), the way the admin finds every app's `admin`
module. It also registers the outbound client's warning about
OUTBOUND_ALLOW_PRIVATE_NETWORKS left on in production (outbox.http).
"""

from django.apps import AppConfig
from django.core import checks
from django.utils.module_loading import autodiscover_modules


class OutboxConfig(AppConfig):
    name = "outbox"

    def ready(self) -> None:
        from outbox.http import private_networks_check

        autodiscover_modules("enqueue")
        checks.register(private_networks_check, checks.Tags.security)
