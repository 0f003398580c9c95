"""Reads of an app's integrations. Other apps use `meta_of` and `google_ads_of` and the plain
values they return: secrets come back decrypted, so callers never see the stored form.

The install path asks for every Android install, so both are kept in this process
(attribution_site/local_cache.py) as one entry per app, which also remembers that an app has no
integration: an app without Meta costs no query either. Every save or delete of a configuration
drops the entry everywhere (wired in networks/apps.py)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db import transaction

from attribution_site.local_cache import LocalCache
from attribution_site.secrets import NETWORK_CREDENTIALS, SecretUnreadable, secret_decrypt
from networks.models import GoogleAdsConfig, MetaConfig


@dataclass(frozen=True)
class MetaIntegration:
    meta_app_id: str
    decryption_key: bytes  # the AES-256 key of Meta's install referrers: 32 bytes
    access_token: str | None  # for the Conversions API; None when not given
    event_mapping: dict[str, str]  # our event name -> Meta's event name
    view_window_hours: int


@dataclass(frozen=True)
class GoogleAdsIntegration:
    link_id: str
    event_mapping: dict[str, str]  # our event name -> Google's app_event_name


@dataclass(frozen=True)
class AppIntegrations:
    meta: MetaIntegration | None
    google_ads: GoogleAdsIntegration | None


_integrations = LocalCache("integrations", ttl=30.0)


def meta_of(app_id: uuid.UUID) -> MetaIntegration | None:
    """The app's Meta integration, or None (not set up, or its secrets no longer decrypt)."""
    return _of(app_id).meta


def google_ads_of(app_id: uuid.UUID) -> GoogleAdsIntegration | None:
    """The app's Google Ads integration, or None (not set up, or its link id no longer
    decrypts)."""
    return _of(app_id).google_ads


def integrations_changed(*, app_id: uuid.UUID) -> None:
    """A configuration changed or is gone: dropped at once here and everywhere again once the
    change commits, so no process keeps a copy read before it."""
    _integrations.invalidate(app_id)
    transaction.on_commit(lambda: _integrations.invalidate(app_id))


def _of(app_id: uuid.UUID) -> AppIntegrations:
    return _integrations.get(app_id, lambda: _load(app_id))


def _load(app_id: uuid.UUID) -> AppIntegrations:
    meta = MetaConfig.objects.filter(app_id=app_id).first()
    google = GoogleAdsConfig.objects.filter(app_id=app_id).first()
    return AppIntegrations(meta=_meta(meta) if meta else None,
                           google_ads=_google(google) if google else None)


def _meta(config: MetaConfig) -> MetaIntegration | None:
    try:
        key = bytes.fromhex(secret_decrypt(config.decryption_key_encrypted,
                                           purpose=NETWORK_CREDENTIALS))
        token = (secret_decrypt(config.access_token_encrypted, purpose=NETWORK_CREDENTIALS)
                 if config.access_token_encrypted else None)
    except SecretUnreadable:  # SECRET_KEY rotated without a fallback: set it up again
        return None
    return MetaIntegration(meta_app_id=config.meta_app_id, decryption_key=key,
                           access_token=token, event_mapping=dict(config.event_mapping),
                           view_window_hours=config.view_window_hours)


def _google(config: GoogleAdsConfig) -> GoogleAdsIntegration | None:
    try:
        link_id = secret_decrypt(config.link_id_encrypted, purpose=NETWORK_CREDENTIALS)
    except SecretUnreadable:
        return None
    return GoogleAdsIntegration(link_id=link_id, event_mapping=dict(config.event_mapping))


def configs_of(*, app_id: uuid.UUID) -> tuple[MetaConfig | None, GoogleAdsConfig | None]:
    """The stored rows, for the dashboard (which shows what is set, never a secret)."""
    return (MetaConfig.objects.filter(app_id=app_id).first(),
            GoogleAdsConfig.objects.filter(app_id=app_id).first())
