"""Writes of ad spend (docs/networks.md, "Ad spend"): an app's cost connections (secrets
encrypted here, a secret left out kept), the pulls beat and the API start, and the pull itself:
claim, call the network outside any transaction, spool what it reads, hand the rows to
analytics' one write (`analytics.costs.cost_rows_replace`), record the outcome.

The rows of a pull are spooled to a temporary file while the network is read, then streamed
into analytics' write: memory stays flat for 150,000 rows, no network call runs inside the
write's transaction, and a pull that fails on its last page writes nothing.
"""

from __future__ import annotations

import json
import logging
import random
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from analytics.costs import CostRowsRefused, SpendRow, cost_rows_replace
from attribution_site.secrets import (
    NETWORK_CREDENTIALS,
    SecretUnreadable,
    secret_decrypt,
    secret_encrypt,
)
from networks.apple import spend as apple_spend
from networks.google import spend as google_spend
from networks.meta import spend as meta_spend
from networks.models import CostPull, CostPullAttempt, SpendConnection
from networks.spend import client, core, enqueue, policy
from networks.spend.connections import SPECS
from networks.spend.core import Answer, Call, CampaignFilter, Failure, PullError
from networks.spend.policy import State
from networks.tiktok import spend as tiktok_spend
from outbox.claim import work_claim, work_due
from outbox.record import Result, attempt_record

logger = logging.getLogger(__name__)

SCHEDULE = "schedule"
REQUEST = "request"
OPEN_STATES = (State.PENDING, State.SENDING)
NO_CONNECTION = "The cost connection is gone or its secrets no longer decrypt; not pulled."
NO_DEV_TOKEN = ("GOOGLE_ADS_DEVELOPER_TOKEN is not set: Google Ads' API needs the service's "
                "developer token; not pulled.")


class MissingSecret(ValueError):
    """A first set-up without a secret it cannot work without (`field` names it)."""

    def __init__(self, field: str):
        super().__init__(field)
        self.field = field


# --- Connections ------------------------------------------------------------------------------

def connection_set(*, app_id: uuid.UUID, network: str, enabled: bool, account: dict[str, str],
                   secrets: dict[str, str | None], lookback_days: int,
                   campaign_ids: list[str], campaign_name_contains: str) -> SpendConnection:
    """Create or replace the app's cost connection with `network`. A secret given as None
    stays as stored (MissingSecret when there is none yet)."""
    spec = SPECS[network]
    with transaction.atomic():
        connection = SpendConnection.objects.select_for_update().filter(
            app_id=app_id, network=network).first()
        stored = _secrets(connection) if connection is not None else {}
        if stored is None:  # unreadable after a key rotation: every secret must come again
            stored = {}
        for field in spec.secrets:
            given = secrets.get(field.name)
            if given is not None:
                stored[field.name] = given
            elif field.name not in stored:
                raise MissingSecret(field.name)
        if connection is None:
            connection = SpendConnection(app_id=app_id, network=network)
        connection.enabled = enabled
        connection.account = dict(account)
        connection.secrets_encrypted = secret_encrypt(json.dumps(stored),
                                                      purpose=NETWORK_CREDENTIALS)
        connection.secrets_last4 = {name: value.strip()[-4:] for name, value in stored.items()}
        connection.lookback_days = lookback_days
        connection.campaign_ids = list(campaign_ids)
        connection.campaign_name_contains = campaign_name_contains
        connection.updated_at = timezone.now()
        connection.save()
    return connection


def connection_delete(*, app_id: uuid.UUID, network: str) -> bool:
    deleted, _ = SpendConnection.objects.filter(app_id=app_id, network=network).delete()
    return bool(deleted)


def _secrets(connection: SpendConnection) -> dict[str, str] | None:
    try:
        return json.loads(secret_decrypt(connection.secrets_encrypted,
                                         purpose=NETWORK_CREDENTIALS))
    except SecretUnreadable:
        return None


# --- Starting pulls ---------------------------------------------------------------------------

def pull_start(*, connection: SpendConnection, trigger: str, today: date | None = None
               ) -> tuple[CostPull, bool]:
    """A pull of the connection's last `lookback_days` days, sent after commit; the open one
    instead when a pull is already pending or running (False: none was made)."""
    with transaction.atomic():
        # The connection's row lock: two starters (beat and a click) make one pull.
        SpendConnection.objects.select_for_update().filter(pk=connection.pk).first()
        open_pull = CostPull.objects.filter(connection=connection,
                                            state__in=OPEN_STATES).first()
        if open_pull is not None:
            return open_pull, False
        now = timezone.now()
        since, until = core.window(today=today or now.date(),
                                   lookback_days=connection.lookback_days)
        pull = CostPull.objects.create(
            connection=connection, app_id=connection.app_id, network=connection.network,
            since=since, until=until, trigger=trigger, state=State.PENDING,
            next_attempt_at=now, updated_at=now, created_at=now)
        pull_id = str(pull.id)
        transaction.on_commit(lambda: enqueue.pulls_enqueue([pull_id]))
    return pull, True


def pulls_schedule(*, now: datetime | None = None) -> int:
    """Beat, every COST_PULL_INTERVAL_MINUTES: a pull for each enabled connection without an
    open one. Returns how many started."""
    today = (now or timezone.now()).date()
    started = 0
    for connection in SpendConnection.objects.filter(enabled=True).order_by("id").iterator():
        _, made = pull_start(connection=connection, trigger=SCHEDULE, today=today)
        started += made
    return started


# --- One pull ---------------------------------------------------------------------------------

@dataclass
class _Counter:
    calls: int = 0


def pull_send(*, pull_id: uuid.UUID | str) -> CostPullAttempt | None:
    """Run the pull now if it is due and nobody else holds it; returns the attempt, or None.
    Never call inside a transaction: it reads the network for up to
    COST_PULL_TIMEOUT_SECONDS."""
    now = timezone.now()
    pull = work_due(enqueue.PULLS, pull_id, now=now)
    if pull is None:
        return None
    connection = SpendConnection.objects.filter(pk=pull.connection_id).first()
    secrets = _secrets(connection) if connection is not None else None
    if secrets is None:
        _close(pull, NO_CONNECTION)
        return None
    if connection.network == "google_ads" and not settings.GOOGLE_ADS_DEVELOPER_TOKEN:
        _close(pull, NO_DEV_TOKEN)
        return None
    attempt = work_claim(enqueue.PULLS, pull, now=now)
    if attempt is None:
        return None
    counter = _Counter()
    every_secret = tuple(secrets.values()) + (settings.GOOGLE_ADS_DEVELOPER_TOKEN,)
    # The whole pull keeps within its budget, so the lease (twice it) never runs out under a
    # worker still reading, which would let the sweep hand the pull to a second one.
    deadline = time.monotonic() + settings.COST_PULL_TIMEOUT_SECONDS

    def call(request: Call) -> Answer:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise PullError(Failure.UNAVAILABLE, f"The pull took longer than "
                                                 f"{settings.COST_PULL_TIMEOUT_SECONDS} s.")
        counter.calls += 1
        return client.call(request, timeout=min(settings.COST_PULL_CALL_TIMEOUT_SECONDS,
                                                remaining))

    keep = CampaignFilter(frozenset(connection.campaign_ids),
                          connection.campaign_name_contains)
    spec = SPECS[connection.network]
    account = _account_label(connection)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
        read = 0
        try:
            for row in core.filtered(_rows(connection, secrets, pull, call, keep), keep):
                spool.write(_line(row))
                read += 1
            spool.seek(0)
            outcome = cost_rows_replace(
                app_id=pull.app_id, connection=connection.network,
                media_source=spec.media_source, account=account,
                days=core.days_of(pull.since, pull.until), rows=_spooled(spool))
        except PullError as exc:
            _record_failure(pull, attempt, exc, counter.calls, read, every_secret)
            return attempt
        except CostRowsRefused as exc:
            _record_failure(pull, attempt, PullError(Failure.REFUSED, core.clip(
                f"{connection.get_network_display()} sent a row that cannot be stored: {exc}")),
                counter.calls, read, every_secret)
            return attempt
    # As text without the database's trailing zeros: "259.245", not "259.245000000000".
    totals = {currency: format(amount.normalize(), "f")
              for currency, amount in sorted(outcome.spend.items())}
    attempt_record(enqueue.PULLS, pull, attempt, Result(
        state=State.DONE, retry_in=None,
        attempt={"error_message": "", "calls": counter.calls, "rows_read": read},
        work={"rows_written": outcome.rows, "spend_totals": totals, "last_error": ""}),
        now=timezone.now())
    logger.info("cost pull %s (%s, %s..%s): %d rows in %d calls", pull.id, pull.network,
                pull.since, pull.until, outcome.rows, counter.calls)
    return attempt


def _rows(connection: SpendConnection, secrets: dict[str, str], pull: CostPull, call,
          keep: CampaignFilter) -> Iterator[SpendRow]:
    account = connection.account
    if connection.network == "meta":
        return meta_spend.rows(
            meta_spend.Connection(account["ad_account_id"], secrets["access_token"]),
            origin=settings.META_GRAPH_API_URL, since=pull.since, until=pull.until, call=call)
    if connection.network == "google_ads":
        return google_spend.rows(
            google_spend.Connection(
                customer_id=account["customer_id"],
                login_customer_id=account.get("login_customer_id", ""),
                client_id=account["client_id"], client_secret=secrets["client_secret"],
                refresh_token=secrets["refresh_token"],
                developer_token=settings.GOOGLE_ADS_DEVELOPER_TOKEN),
            origin=settings.GOOGLE_ADS_REPORTING_API_URL,
            token_url=settings.GOOGLE_OAUTH_TOKEN_URL, since=pull.since, until=pull.until,
            call=call)
    if connection.network == "tiktok":
        return tiktok_spend.rows(
            tiktok_spend.Connection(account["advertiser_id"], secrets["access_token"]),
            origin=settings.TIKTOK_API_URL, since=pull.since, until=pull.until, call=call)
    return apple_spend.rows(
        apple_spend.Connection(org_id=account["org_id"], client_id=account["client_id"],
                               team_id=account["team_id"], key_id=account["key_id"],
                               private_key=secrets["private_key"]),
        origin=settings.APPLE_ADS_PLATFORM_API_URL, token_url=settings.APPLE_OAUTH_TOKEN_URL,
        since=pull.since, until=pull.until, now=timezone.now(), call=call, keep=keep)


def _account_label(connection: SpendConnection) -> str:
    account = connection.account
    return next((account[name] for name in ("ad_account_id", "customer_id", "advertiser_id",
                                            "org_id") if account.get(name)), "")


def _line(row: SpendRow) -> str:
    return json.dumps([row.day.isoformat(), row.campaign_id, str(row.spend), row.currency,
                       row.adset_id, row.ad_id, row.impressions, row.clicks,
                       row.campaign_name, row.adset_name, row.ad_name]) + "\n"


def _spooled(spool) -> Iterator[SpendRow]:
    for line in spool:
        (day, campaign_id, spend, currency, adset_id, ad_id, impressions, clicks,
         campaign_name, adset_name, ad_name) = json.loads(line)
        yield SpendRow(day=date.fromisoformat(day), campaign_id=campaign_id,
                       spend=Decimal(spend), currency=currency, adset_id=adset_id, ad_id=ad_id,
                       impressions=impressions, clicks=clicks, campaign_name=campaign_name,
                       adset_name=adset_name, ad_name=ad_name)


def _record_failure(pull: CostPull, attempt: CostPullAttempt, error: PullError, calls: int,
                    read: int, secrets: tuple[str, ...]) -> None:
    message = core.masked(error.message, secrets)
    retry = policy.retry_in(failure=error.failure, attempt_number=attempt.number,
                            retry_after=error.retry_after, jitter=random.random())
    attempt_record(enqueue.PULLS, pull, attempt, Result(
        state=State.FAILED, retry_in=retry,
        attempt={"error_message": message, "calls": calls, "rows_read": read},
        work={"last_error": message}), now=timezone.now())
    if retry is None:
        logger.warning("cost pull %s (%s) failed after %d attempts: %s", pull.id, pull.network,
                       attempt.number, message)
    else:
        logger.info("cost pull %s (%s): %s; retry in %.0f s", pull.id, pull.network, message,
                    retry)


def _close(pull: CostPull, error: str) -> None:
    """End a pull that is not run, if it is still pending (no attempt: nothing was called)."""
    now = timezone.now()
    CostPull.objects.filter(id=pull.id, state=State.PENDING).update(
        state=State.FAILED, last_error=error, next_attempt_at=None, completed_at=now,
        updated_at=now)
    logger.info("cost pull %s: %s", pull.id, error)
