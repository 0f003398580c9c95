"""Writes of an app's integrations (spec additions: `PUT/DELETE /apps/{id}/integrations/{kind}`,
docs/networks.md). Values arrive validated (integrations/validation.py); secrets are encrypted
here, with the webhook secrets' scheme (delivery.crypto)."""

from __future__ import annotations

import uuid

from django.db import transaction
from django.utils import timezone

from delivery.crypto import secret_encrypt
from integrations.models import META_VIEW_WINDOW_DEFAULT_HOURS, GoogleAdsConfig, MetaConfig

META = "meta"
GOOGLE_ADS = "google_ads"
KINDS = (META, GOOGLE_ADS)


def meta_integration_set(*, app_id: uuid.UUID, meta_app_id: str, decryption_key: str,
                         access_token: str | None = None,
                         event_mapping: dict[str, str] | None = None,
                         view_window_hours: int = META_VIEW_WINDOW_DEFAULT_HOURS) -> MetaConfig:
    """Create or replace the app's Meta integration (a PUT: every field as given)."""
    key = decryption_key.lower()
    with transaction.atomic():
        config, _ = MetaConfig.objects.select_for_update().get_or_create(
            app_id=app_id, defaults={"decryption_key_encrypted": "", "decryption_key_last4": ""})
        config.meta_app_id = meta_app_id
        config.decryption_key_encrypted = secret_encrypt(key)
        config.decryption_key_last4 = key[-4:]
        config.access_token_encrypted = secret_encrypt(access_token) if access_token else ""
        config.access_token_last4 = access_token[-4:] if access_token else ""
        config.event_mapping = dict(event_mapping or {})
        config.view_window_hours = view_window_hours
        config.updated_at = timezone.now()
        config.save()
    return config


def google_ads_integration_set(*, app_id: uuid.UUID, link_id: str,
                               event_mapping: dict[str, str] | None = None) -> GoogleAdsConfig:
    """Create or replace the app's Google Ads integration."""
    with transaction.atomic():
        config, _ = GoogleAdsConfig.objects.select_for_update().get_or_create(
            app_id=app_id, defaults={"link_id_encrypted": "", "link_id_last4": ""})
        config.link_id_encrypted = secret_encrypt(link_id)
        config.link_id_last4 = link_id[-4:]
        config.event_mapping = dict(event_mapping or {})
        config.updated_at = timezone.now()
        config.save()
    return config


def integration_delete(*, app_id: uuid.UUID, kind: str) -> bool:
    """Remove the app's integration of that kind; False when there was none."""
    model = MetaConfig if kind == META else GoogleAdsConfig
    # Row by row (not a queryset delete) so the cache invalidation hears it.
    config = model.objects.filter(app_id=app_id).first()
    if config is None:
        return False
    config.delete()
    return True
