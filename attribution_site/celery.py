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
from datetime import timedelta

from celery import Celery
from celery.schedules import crontab
from celery.signals import after_setup_logger

from attribution_site.docstrings import summary

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


def describe() -> list[dict[str, str]]:
    """Beat's schedule (CELERY_BEAT_SCHEDULE) as the map lists it (docs/architecture.md): each
    entry's task, when it runs, the app whose task it is and what the task does."""
    app.loader.import_default_modules()  # every app's tasks module, as a worker has them
    rows = []
    for entry in app.conf.beat_schedule.values():
        task = app.tasks[entry["task"]]
        rows.append({"task": entry["task"], "when": _when(entry["schedule"]),
                     "app": task.run.__module__.split(".")[0], "does": summary(task.run)})
    return rows


def _when(schedule: object) -> str:
    if isinstance(schedule, crontab):
        fields = (schedule._orig_minute, schedule._orig_hour, schedule._orig_day_of_month,
                  schedule._orig_month_of_year, schedule._orig_day_of_week)
        return "cron `" + " ".join(str(field) for field in fields) + "`"
    seconds = schedule.total_seconds() if isinstance(schedule, timedelta) else float(schedule)
    for unit, length in (("h", 3600), ("min", 60)):
        if seconds >= length and seconds % length == 0:
            return f"every {seconds / length:g} {unit}"
    return f"every {seconds:g} s"
