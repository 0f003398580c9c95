"""Reads of fraud protection that other apps call: an app's settings (`settings_of`), the
sources flooding on a day (`flooding_sources`) and a key's signing secret. Each is read on
every SDK request, so each is kept in the process (attribution_site/local_cache.py) and dropped
everywhere when its rows change (wired in fraud/apps.py)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date

from django.db import transaction

from attribution_site.local_cache import LocalCache
from fraud.defaults import DEFAULTS, FIELDS, FraudSettings
from fraud.models import AppFraudSettings, BotClicks, SignatureRefusal, SigningSecret, SourceFlag

_settings = LocalCache("fraud-settings", ttl=60.0)
_flooding = LocalCache("fraud-flooding", ttl=30.0)
_signing = LocalCache("fraud-signing", ttl=60.0)


def settings_of(app_id: uuid.UUID) -> FraudSettings:
    """The app's fraud settings, from this process's copy when it has one."""
    return _settings.get(app_id, lambda: _settings_uncached(app_id))


def settings_from_row(row: AppFraudSettings) -> FraudSettings:
    values = {name: getattr(row, name) for name in FIELDS}
    values["listed_networks"] = tuple(values["listed_networks"])
    values["test_devices"] = frozenset(device.lower() for device in values["test_devices"])
    return FraudSettings(**values)


def _settings_uncached(app_id: uuid.UUID) -> FraudSettings:
    row = AppFraudSettings.objects.filter(app_id=app_id).first()
    return DEFAULTS if row is None else settings_from_row(row)


def settings_changed(*, app_id: uuid.UUID) -> None:
    _settings.invalidate(app_id)
    transaction.on_commit(lambda: _settings.invalidate(app_id))


def flooding_sources(app_id: uuid.UUID, day: date) -> frozenset[str]:
    """The media sources beat found flooding the app's clicks on `day`."""
    key = f"{app_id}/{day.isoformat()}"
    return _flooding.get(key, lambda: frozenset(
        SourceFlag.objects.filter(app_id=app_id, day=day).values_list("media_source",
                                                                      flat=True)))


def flooding_changed(*, app_id: uuid.UUID, day: date) -> None:
    key = f"{app_id}/{day.isoformat()}"
    _flooding.invalidate(key)
    transaction.on_commit(lambda: _flooding.invalidate(key))


def signing_secret_encrypted(key_id: str) -> str:
    """The key's encrypted signing secret, or "" for a key that does not sign (kept too: the
    cache never keeps None, and most keys do not sign)."""
    return _signing.get(key_id, lambda: SigningSecret.objects.filter(key_id=key_id).values_list(
        "secret_encrypted", flat=True).first() or "")


def signing_changed(*, key_id: str) -> None:
    _signing.invalidate(key_id)
    transaction.on_commit(lambda: _signing.invalidate(key_id))


@dataclass(frozen=True)
class SourceFlagRow:
    media_source: str
    day: date
    mode: str
    detected_at: object  # datetime
    stats: dict


def source_flags(*, app_id: uuid.UUID, start: date, end: date) -> list[SourceFlagRow]:
    """The app's click-flood flags of days start..end, for the fraud report."""
    return [SourceFlagRow(*row) for row in SourceFlag.objects.filter(
        app_id=app_id, day__gte=start, day__lte=end).order_by("day", "media_source")
        .values_list("media_source", "day", "mode", "detected_at", "stats")]


def signature_refusals(*, app_id: uuid.UUID, start: date, end: date) -> dict[str, int]:
    """Requests refused for their signature in days start..end, by sub-reason."""
    counts: dict[str, int] = {}
    for sub_reason, refusals in SignatureRefusal.objects.filter(
            app_id=app_id, day__gte=start, day__lte=end).values_list("sub_reason", "refusals"):
        counts[sub_reason] = counts.get(sub_reason, 0) + refusals
    return counts


def bot_clicks(*, app_id: uuid.UUID, start: date, end: date) -> dict[tuple[str, str], int]:
    """Clicks the bots rule caught in days start..end, by (media source, mode)."""
    counts: dict[tuple[str, str], int] = {}
    for source, mode, clicks in BotClicks.objects.filter(
            app_id=app_id, day__gte=start, day__lte=end).values_list("media_source", "mode",
                                                                    "clicks"):
        counts[(source, mode)] = counts.get((source, mode), 0) + clicks
    return counts
