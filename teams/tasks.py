"""Teams' beat job (attribution_site/settings.py, CELERY_BEAT_SCHEDULE)."""

from celery import shared_task
from django.utils import timezone

from teams.access_tokens import access_tokens_prune
from teams.invitations import invitations_prune


@shared_task(name="teams.prune", ignore_result=True)
def prune() -> None:
    """Delete expired invitations, and tokens that can no longer work (expired, or made before
    their person's role changed): both are already refused and hidden, this only tidies."""
    now = timezone.now()
    invitations_prune(now=now)
    access_tokens_prune(now=now)
