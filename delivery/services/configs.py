"""Postback and webhook configurations (spec: Postback endpoints, Webhook endpoints): create,
update and delete, with the save-time destination check, the webhook URL rule (https; plain http
only to loopback or private receivers, where allowed), the one-postback-per-media-source and
twenty-webhooks-per-app rules, and the webhook secret shown once. The delivery targets cached
in each process follow every save and delete on their own (delivery/apps.py), so the next
install or event sees a change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps_registry.models import App
from attribution_site.api.exceptions import Conflict, ValidationFailed
from attribution_site.model_update import model_update
from attribution_site.secrets import WEBHOOK_SIGNING, secret_encrypt
from delivery import payloads, policy
from delivery.models import ConsentPolicy, HttpMethod, PostbackConfig, Webhook
from outbox import http

UPDATABLE_POSTBACK_FIELDS = ("media_source", "postback_url", "http_method", "events", "active",
                             "consent_policy", "send_rejected")
UPDATABLE_WEBHOOK_FIELDS = ("url", "events", "active")
MAX_WEBHOOKS_PER_APP = 20
SECRET_MESSAGE = ("Store this secret now: it is shown only once. Use it to verify the "
                  "X-Signature (or webhook-signature) header of every delivery.")


def _check_destination(url: str, *, field: str) -> None:
    """Save-time address check; the same check runs again before every send."""
    reason = http.destination_refusal(url)
    if reason is not None:
        raise ValidationFailed(f"Invalid input: {field}.", {field: [reason]})


def webhook_url_problem(url: str) -> str | None:
    """Why `url` cannot be a webhook's (or a privacy request's status callback's), or None.

    The spec's webhooks are https. Plain http is accepted only where private receivers are
    allowed, and then only to loopback or private addresses: a public http URL is refused in
    every configuration. The general address check is `_check_destination`'s, as for postbacks.
    """
    allowed = http.private_networks_allowed()
    if policy.url_problem(url, schemes=("http", "https")) is not None:
        return policy.url_problem(url, schemes=("http", "https") if allowed else ("https",))
    if urlsplit(url).scheme.lower() == "https":
        return None
    local_problem = http.plain_http_destination_refusal(url)
    if allowed:
        return local_problem
    # The setting's hint only where it would help: a receiver on loopback or a private network.
    https_only = policy.url_problem(url, schemes=("https",))
    return https_only if local_problem else f"{https_only} {http.LOCAL_DESTINATIONS_HINT}"


def _media_source_conflict(media_source: str) -> Conflict:
    message = f"A postback for media source {media_source!r} already exists for this app."
    return Conflict(message, {"media_source": [message]})


def _check_changes(changes: dict[str, Any], *, url_field: str) -> None:
    if url_field in changes:
        _check_destination(changes[url_field], field=url_field)


def _save_changes(config: PostbackConfig | Webhook, changes: dict[str, Any], *,
                  updatable: tuple[str, ...]) -> None:
    with transaction.atomic():  # a savepoint: a media source taken meanwhile is a 409
        model_update(instance=config, changes=changes, updatable=updatable)


def postback_create(*, app: App, media_source: str, postback_url: str,
                    http_method: str = HttpMethod.GET, events: Sequence[str] | None = None,
                    active: bool = True, consent_policy: str = ConsentPolicy.STRIP,
                    send_rejected: bool = False) -> PostbackConfig:
    _check_destination(postback_url, field="postback_url")
    if PostbackConfig.objects.filter(app=app, media_source=media_source).exists():
        raise _media_source_conflict(media_source)
    now = timezone.now()
    postback = PostbackConfig(app=app, media_source=media_source, postback_url=postback_url,
                              http_method=http_method, events=list(events or [payloads.INSTALL]),
                              active=active, consent_policy=consent_policy,
                              send_rejected=send_rejected, created_at=now, updated_at=now)
    try:
        with transaction.atomic():
            postback.save(force_insert=True)
    except IntegrityError:  # a concurrent create for the same media source won the race
        raise _media_source_conflict(media_source) from None
    return postback


def postback_update(*, postback: PostbackConfig, changes: dict[str, Any]) -> PostbackConfig:
    _check_changes(changes, url_field="postback_url")
    source = changes.get("media_source")
    if source is not None and source != postback.media_source and PostbackConfig.objects.filter(
            app_id=postback.app_id, media_source=source).exists():
        raise _media_source_conflict(source)
    if not changes:
        return postback
    try:
        _save_changes(postback, changes, updatable=UPDATABLE_POSTBACK_FIELDS)
    except IntegrityError:
        raise _media_source_conflict(postback.media_source) from None
    return postback


def postback_delete(*, postback: PostbackConfig) -> None:
    """Its open deliveries are cancelled when their turn comes; its log is kept."""
    postback.delete()


def webhook_create(*, app: App, url: str, events: Sequence[str]) -> tuple[Webhook, str]:
    """The webhook and its signing secret, which is never available again."""
    _check_destination(url, field="url")
    if Webhook.objects.filter(app=app).count() >= MAX_WEBHOOKS_PER_APP:
        message = f"An app can have at most {MAX_WEBHOOKS_PER_APP} webhooks."
        raise ValidationFailed(message, {"non_field_errors": [message]})
    secret = payloads.secret_generate()
    now = timezone.now()
    sealed = secret_encrypt(secret, purpose=WEBHOOK_SIGNING)
    webhook = Webhook.objects.create(app=app, url=url, events=list(events), active=True,
                                     secret_encrypted=sealed, created_at=now, updated_at=now)
    return webhook, secret


def webhook_update(*, webhook: Webhook, changes: dict[str, Any]) -> Webhook:
    _check_changes(changes, url_field="url")
    if changes:
        _save_changes(webhook, changes, updatable=UPDATABLE_WEBHOOK_FIELDS)
    return webhook


def webhook_delete(*, webhook: Webhook) -> None:
    webhook.delete()
