"""The web process's ASGI entry point; like the WSGI one, it starts beat's schedule in this
process on the embedded default (attribution_site/scheduler.py)."""

import os

from django.core.asgi import get_asgi_application

from attribution_site import scheduler

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "attribution_site.settings")
application = get_asgi_application()

scheduler.start_if_embedded()
