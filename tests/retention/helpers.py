"""Helpers shared by the retention tests and the tests that build on them.

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from tracking.fingerprint import click_fingerprint, network_key
from tracking.models import Click, ClickArchive, Event, Install

UA = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126 Mobile"


@pytest.fixture
def now():
    """Noon today, UTC: rows a few days old fall into the day partitions migrate and beat
    made (and partitions_ensure makes the older days the tests need)."""
    return timezone.now().astimezone(UTC).replace(hour=12, minute=0, second=0, microsecond=0)


def days_ago(now: datetime, days: float) -> datetime:
    return now - timedelta(days=days)


def click_pair(app, when: datetime, ip: str, *, source: str = "facebook",
               device: str | None = None) -> uuid.UUID:
    """A click as the hot path stores it: the hot store and the archive, the same values."""
    values = {"id": uuid.uuid4(), "app": app, "clicked_at": when, "media_source": source,
              "campaign_id": "c1", "advertising_id": device, "ip": ip,
              "ip_prefix": network_key(ip), "user_agent": UA,
              "fingerprint": click_fingerprint(ip, UA)}
    Click.objects.create(**values)
    ClickArchive.objects.create(**values)
    return values["id"]


def install_at(app, when: datetime, ip: str, device: str) -> Install:
    return Install.objects.create(app=app, device_id=device, platform="android",
                                  sdk_version="1.0.0", installed_at=when, ip=ip,
                                  user_agent=UA, match_type="organic", is_organic=True)


def event_at(app, when: datetime, device: str, install: Install | None = None) -> Event:
    return Event.objects.create(app=app, install=install, device_id=device, event_name="open",
                                session_id=uuid.uuid4(), occurred_at=when, received_at=when)


def stored_click(model, click_id) -> dict:
    return model.objects.filter(id=click_id).values("ip", "ip_prefix", "fingerprint",
                                                    "user_agent").get()


__all__ = [
    "UA",
    "click_pair",
    "days_ago",
    "event_at",
    "install_at",
    "stored_click",
]
