"""Writes of an app's integrations (spec additions: `PUT/DELETE /apps/{id}/integrations/{kind}`,
docs/networks.md). Values arrive validated (networks/validation.py); secrets are encrypted
here (attribution_site/secrets.py, as ad network credentials)."""

from __future__ import annotations

import uuid

from django.db import transaction
from django.utils import timezone

from attribution_site.secrets import NETWORK_CREDENTIALS, secret_encrypt
from networks.models import META_VIEW_WINDOW_DEFAULT_HOURS, GoogleAdsConfig, MetaConfig

META = "meta"
GOOGLE_ADS = "google_ads"
KINDS = (META, GOOGLE_ADS)


class MissingSecret(ValueError):
    """A first set-up without the secret it cannot work without (`field` names it)."""

    def __init__(self, field: str):
        super().__init__(field)
        self.field = field


# A secret a PUT leaves out stays as stored: the console never shows secrets again, so an edit
# of the event mapping must not make the owner paste the key once more.
KEEP = None


def meta_integration_set(*, app_id: uuid.UUID, meta_app_id: str,
                         decryption_key: str | None = KEEP,
                         access_token: str | None = KEEP, remove_access_token: bool = False,
                         event_mapping: dict[str, str] | None = None,
                         view_window_hours: int = META_VIEW_WINDOW_DEFAULT_HOURS) -> MetaConfig:
    """Create or replace the app's Meta integration. A secret given as KEEP stays as stored
    (MissingSecret when there is none yet); `remove_access_token` drops the token."""
    with transaction.atomic():
        config = MetaConfig.objects.select_for_update().filter(app_id=app_id).first()
        if config is None:
            if decryption_key is KEEP:
                raise MissingSecret("install_referrer_decryption_key")
            config = MetaConfig(app_id=app_id)
        config.meta_app_id = meta_app_id
        if decryption_key is not KEEP:
            key = decryption_key.lower()
            config.decryption_key_encrypted = secret_encrypt(key, purpose=NETWORK_CREDENTIALS)
            config.decryption_key_last4 = key[-4:]
        if remove_access_token:
            config.access_token_encrypted, config.access_token_last4 = "", ""
        elif access_token is not KEEP:
            config.access_token_encrypted = secret_encrypt(access_token,
                                                           purpose=NETWORK_CREDENTIALS)
            config.access_token_last4 = access_token[-4:]
        config.event_mapping = dict(event_mapping or {})
        config.view_window_hours = view_window_hours
        config.updated_at = timezone.now()
        config.save()
    return config


def google_ads_integration_set(*, app_id: uuid.UUID, link_id: str | None = KEEP,
                               event_mapping: dict[str, str] | None = None) -> GoogleAdsConfig:
    """Create or replace the app's Google Ads integration; a link id given as KEEP stays."""
    with transaction.atomic():
        config = GoogleAdsConfig.objects.select_for_update().filter(app_id=app_id).first()
        if config is None:
            if link_id is KEEP:
                raise MissingSecret("link_id")
            config = GoogleAdsConfig(app_id=app_id)
        if link_id is not KEEP:
            config.link_id_encrypted = secret_encrypt(link_id, purpose=NETWORK_CREDENTIALS)
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
