"""The web process's entry point (gunicorn, and runserver through WSGI_APPLICATION). On the
embedded default it also starts beat's schedule in this process (attribution_site/scheduler.py):
only a process that serves loads this module."""

import os

from django.core.wsgi import get_wsgi_application

from attribution_site import scheduler

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "attribution_site.settings")
application = get_wsgi_application()

scheduler.start_if_embedded()
