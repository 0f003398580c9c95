"""Django project package: settings, root URLs, the Celery app and the API plumbing."""

from attribution_site.celery import app as celery_app

__all__ = ("celery_app",)
