"""The Celery app: configured from Django settings (CELERY_*), JSON only, tasks autodiscovered.

Without REDIS_URL, tasks run in-process (CELERY_TASK_ALWAYS_EAGER), so `make run` needs no
broker.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "attribution_site.settings")

app = Celery("attribution_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
