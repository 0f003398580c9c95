"""Entries older than AUDIT_RETENTION_DAYS go, by beat's `audit.prune`; nothing else deletes."""

from datetime import timedelta

import pytest
from django.conf import settings as project_settings
from django.utils import timezone

from audit import tasks
from audit.models import Entry, TokenAddress
from audit.services import entries_prune
from tests.audit.helpers import entries_for

pytestmark = pytest.mark.django_db


def test_entries_past_the_retention_go_and_the_rest_stay(owner):
    now = timezone.now()
    old = entries_for(owner, 2, start=now - timedelta(days=401))
    kept = entries_for(owner, 2, start=now - timedelta(days=399))
    TokenAddress.objects.create(token_digest="a" * 64, ip="192.0.2.1",
                                first_seen_at=now - timedelta(days=401))

    assert entries_prune(now=now, retention_days=400) == len(old)
    assert set(Entry.objects.values_list("id", flat=True)) == {entry.id for entry in kept}
    assert not TokenAddress.objects.exists()


def test_the_beat_task_reads_the_setting(owner, settings):
    settings.AUDIT_RETENTION_DAYS = 10
    entries_for(owner, 1, start=timezone.now() - timedelta(days=11))
    entries_for(owner, 1, start=timezone.now() - timedelta(days=9))

    tasks.prune()

    assert Entry.objects.count() == 1


def test_beat_runs_it_daily_and_the_default_is_400_days():
    entry = project_settings.CELERY_BEAT_SCHEDULE["audit.prune"]
    assert entry["task"] == "audit.prune"
    assert project_settings.AUDIT_RETENTION_DAYS == 400
