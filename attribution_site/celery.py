"""The Celery app: configured from Django settings (CELERY_*), JSON only, tasks autodiscovered.

Without REDIS_URL, tasks run in-process (CELERY_TASK_ALWAYS_EAGER), so `make run` needs no
broker, and the web process runs beat's schedule itself (attribution_site/scheduler.py). Beat
sends the analytics refresh every 2 seconds; its routine INFO lines (sent, received, succeeded)
are kept out of the worker's and beat's logs, which would otherwise show little else. Its
warnings and failures still show. The worker keeps its database connections from one task to
the next (attribution_site/worker_connections.py).
"""

import logging
import os

from celery import Celery
from celery.signals import after_setup_logger

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "attribution_site.settings")

app = Celery("attribution_site", fixups=["attribution_site.worker_connections:fixup"])
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

ROUTINE_TASKS = ("analytics.rollups_refresh",)


class RoutineTaskFilter(logging.Filter):
    """Drops the INFO lines (sent, received, succeeded) that name one of `tasks`."""

    def __init__(self, tasks: tuple[str, ...] = ROUTINE_TASKS):
        super().__init__()
        self.tasks = tasks

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.INFO:
            return True
        message = record.getMessage()
        return not any(task in message for task in self.tasks)


@after_setup_logger.connect
def _quiet_routine_tasks(logger, **kwargs):
    for handler in logger.handlers:
        handler.addFilter(RoutineTaskFilter())
