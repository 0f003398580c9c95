"""Conversions sent back to Google Ads and Meta as deliveries (docs/networks.md, "Sending
conversions"): two more kinds of delivery (`google_ads`, `meta`) besides postbacks and webhooks,
so each try is an attempt row the delivery log lists (`GET /api/v1/postbacks/logs?platform=`),
retried and swept like any delivery, and nothing is lost while a platform is down.

Delivery does not know the integrations or the installs: the app that joins them (google_ads,
at start) hands in an app's platform accounts (cached per process there) and the builder of a
conversion's request (from the install's device facts), as links hands tracking its deep link
reader. Without them (google_ads not installed) nothing is sent to a platform.

The rows are written with the facts (InstallAttributed, EventTracked), frozen as
`platforms.Conversion`; the user's consent at the fact decides: anything but `full` sharing
writes the row as `skipped` with the reason, and nothing is sent.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils import timezone

from attribution_site.write_batch import WriteBatch
from consent import sharing
from delivery import enqueue, payloads, platforms, policy
from delivery.models import Delivery, State
from delivery.platforms import Conversion
from delivery.services.fanout import FILTERED_NOTE, _consents
from outbox import http

NO_IDENTIFIERS_NOTE = ("skipped: GDPR applies and ad_user_data is denied (a conversion names "
                       "the device)")


@dataclass(frozen=True)
class PlatformAccount:
    """One platform an app sends conversions to."""

    platform: str  # platforms.GOOGLE_ADS or platforms.META
    account_id: str  # Google's link id, or Meta's app id
    access_token: str | None  # Meta's; Google's developer token is the operator's setting
    event_mapping: dict[str, str]


@dataclass(frozen=True)
class Built:
    request: http.OutboundRequest
    logged_url: str  # secrets masked
    problem: str | None = None  # why it cannot be sent at all


AccountsReader = Callable[[uuid.UUID], Sequence[PlatformAccount]]
RequestBuilder = Callable[[PlatformAccount, Conversion], Built]
_accounts: AccountsReader | None = None
_builder: RequestBuilder | None = None


def platform_sources_register(*, accounts: AccountsReader | None,
                              builder: RequestBuilder | None) -> None:
    """Use these for platform deliveries: an app's accounts (cached by the caller: the
    fan-out asks for every fact) and the request of one conversion (None: no platform is sent
    anything)."""
    global _accounts, _builder
    _accounts, _builder = accounts, builder


def _accounts_of(app_id: uuid.UUID) -> Sequence[PlatformAccount]:
    return _accounts(app_id) if _accounts is not None else ()


def account_of(app_id: uuid.UUID, platform: str) -> PlatformAccount | None:
    return next((a for a in _accounts_of(app_id) if a.platform == platform), None)


# --- Fan-out ------------------------------------------------------------------------------

def platform_deliveries_for_installs(events: Sequence[Any], batch: WriteBatch) -> None:
    """InstallAttributed: Meta hears of every new install (Google's first_open is its claim,
    google_ads, sent once)."""
    _create(events, batch, new_installs=True)


def platform_deliveries_for_events(events: Sequence[Any], batch: WriteBatch) -> None:
    """EventTracked: each mapped event of a known install, to each platform mapping it."""
    _create(events, batch, new_installs=False)


def _wanted(event: Any, account: PlatformAccount, *, new_installs: bool
            ) -> tuple[str, str | None] | None:
    """(the platform's event name, ours) when `event` goes to `account`."""
    if new_installs:
        return (platforms.META_INSTALL, None) if account.platform == platforms.META else None
    if event.install_id is None:
        return None  # not linked to an install yet: no device to name
    if account.platform == platforms.GOOGLE_ADS and not event.device_id:
        return None  # Google identifies the user by the advertising id alone
    name = platforms.platform_event(account.event_mapping, event.event_name)
    return (name, event.event_name) if name else None


def _create(events: Sequence[Any], batch: WriteBatch, *, new_installs: bool) -> None:
    wanted = []
    accounts: dict[uuid.UUID, Sequence[PlatformAccount]] = {}  # a batch is one app's, mostly
    for event in events:
        if event.app_id not in accounts:
            accounts[event.app_id] = _accounts_of(event.app_id)
        for account in accounts[event.app_id]:
            names = _wanted(event, account, new_installs=new_installs)
            if names is not None:
                wanted.append((event, account, names))
    if not wanted:
        return
    now = timezone.now()
    unique_events = list({id(event): event for event, _, _ in wanted}.values())
    consents = dict(zip((id(e) for e in unique_events),
                        _consents(unique_events, new_installs=new_installs), strict=True))
    attempts = policy.max_attempts(settings.DELIVERY_RETRY_DELAYS)
    rows = []
    for event, account, (platform_event, event_name) in wanted:
        consent = consents[id(event)]
        shared = sharing.partner_sharing(consent)
        note = {sharing.NONE: FILTERED_NOTE,
                sharing.NO_IDENTIFIERS: NO_IDENTIFIERS_NOTE}.get(shared, "")
        install_id = str(event.install_id)
        conversion = Conversion(
            platform=account.platform, platform_event=platform_event, event_name=event_name,
            occurred_at=(event.installed_at if new_installs else event.occurred_at).isoformat(),
            install_id=install_id, device_id=event.device_id,
            value=None if new_installs or event.revenue_amount is None
            else format(event.revenue_amount.normalize(), "f"),
            currency=None if new_installs else event.revenue_currency,
            consent=platforms.google_consent(consent))
        skipped = bool(note)
        rows.append(Delivery(
            id=uuid.uuid4(), app_id=event.app_id, kind=account.platform,
            event_type=payloads.INSTALL if new_installs else payloads.EVENT,
            source_id=install_id if new_installs else str(event.event_id),
            install_id=event.install_id,
            body="{}" if skipped else conversion.body(),
            state=State.SKIPPED if skipped else State.PENDING, consent_note=note,
            max_attempts=attempts, next_attempt_at=None if skipped else now,
            completed_at=now if skipped else None, created_at=now, updated_at=now))
    batch.insert(rows, ignore_conflicts=True)  # a fact published twice is sent once
    delivery_ids = [str(row.id) for row in rows if row.state == State.PENDING]
    if delivery_ids:
        batch.after_commit(lambda: enqueue.deliveries_enqueue(delivery_ids))


# --- Sending ------------------------------------------------------------------------------

def platform_request(delivery: Delivery) -> Built | None:
    """The request of a platform delivery, the URL the log shows, and a problem that keeps it
    from being sent (the attempt then fails at once, for good); None when the app no longer
    has the platform's integration (the delivery is cancelled, like one whose postback was
    deleted)."""
    account = account_of(delivery.app_id, delivery.kind)
    if account is None or _builder is None:
        return None
    return _builder(account, Conversion.from_body(delivery.body))
