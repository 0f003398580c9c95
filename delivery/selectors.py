"""Reads of delivery configurations and logs (spec: Postback endpoints, Webhook endpoints),
where a fact must be delivered, which the SDK hot path asks on every install and batch, and how
many deliveries are overdue, which /readyz, beat and `manage.py delivery_health` report.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import BooleanField, CharField, Count, Q, QuerySet, Value

from attribution_site import prepared
from attribution_site.local_cache import LocalCache
from delivery.models import Delivery, DeliveryAttempt, Kind, PostbackConfig, State, Webhook


@dataclass(frozen=True)
class Target:
    """An active configuration as the in-transaction handlers need it."""

    kind: str
    config_id: uuid.UUID
    app_id: uuid.UUID
    media_source: str
    events: tuple[str, ...]
    consent_policy: str = ""  # a postback's (strip | suppress); "" for webhooks
    send_rejected: bool = False  # a postback's: rejected-install postbacks (docs/fraud.md)


# Every install and event batch asks; configurations change a few times in an app's life.
# Every save or delete of a postback or webhook calls `delivery_targets_changed` (wired in
# delivery/apps.py), which drops the copy in every process (attribution_site/local_cache.py).
_targets_cache = LocalCache("delivery-targets", ttl=30.0)


def delivery_targets(*, app_ids: Iterable[uuid.UUID]) -> list[Target]:
    """Active postbacks and webhooks of the apps, from this process's cache when it has them."""
    return [target for app_id in set(app_ids)
            for target in _targets_cache.get(app_id, lambda a=app_id: _targets_uncached([a]))]


def delivery_targets_changed(*, app_id: uuid.UUID) -> None:
    """An app's configurations changed: every process reads them again. Dropped at once here
    and everywhere again once the change commits, so no process keeps a copy read before it."""
    _targets_cache.invalidate(app_id)
    transaction.on_commit(lambda: _targets_cache.invalidate(app_id))


# The targets are ONE indexed query (a UNION ALL) in two versions side by side, the one place
# delivery asks which database it is on. PostgreSQL first: plain SQL, prepared on first use
# (attribution_site/prepared.py), because the ORM's union costs ~0.6 ms of Python per call and
# every install and event batch may make one. Else the ORM's union for other databases (the
# SQLite first-run default), which must give the same targets: tests run both.
_TARGETS_SQL = (
    f"SELECT %s, id, app_id, media_source, events, consent_policy, send_rejected "
    f"FROM {PostbackConfig._meta.db_table} WHERE app_id = ANY(%s) AND active UNION ALL "
    f"SELECT %s, id, app_id, '', events, '', false FROM {Webhook._meta.db_table} "
    "WHERE app_id = ANY(%s) AND active"
)


def _targets_uncached(app_ids: list[uuid.UUID]) -> tuple[Target, ...]:
    """The apps' active configurations, read from the database."""
    if connection.vendor == "postgresql":
        rows = prepared.fetch(_TARGETS_SQL, [Kind.POSTBACK.value, app_ids, Kind.WEBHOOK.value,
                                             app_ids])
    else:
        postbacks = PostbackConfig.objects.filter(app_id__in=app_ids, active=True).annotate(
            kind=Value(Kind.POSTBACK.value, output_field=CharField()),
        ).values_list("kind", "id", "app_id", "media_source", "events", "consent_policy",
                      "send_rejected")
        webhooks = Webhook.objects.filter(app_id__in=app_ids, active=True).annotate(
            kind=Value(Kind.WEBHOOK.value, output_field=CharField()),
            no_source=Value("", output_field=CharField()),
            no_policy=Value("", output_field=CharField()),
            no_rejected=Value(False, output_field=BooleanField()),
        ).values_list("kind", "id", "app_id", "no_source", "events", "no_policy",
                      "no_rejected")
        rows = postbacks.union(webhooks, all=True)
    # The plain cursor may hand `events` over as JSON text; the ORM has decoded it already.
    return tuple(Target(kind, config_id, app_id, source,
                        tuple(json.loads(events) if isinstance(events, str) else events or ()),
                        policy, bool(send_rejected))
                 for kind, config_id, app_id, source, events, policy, send_rejected in rows)


CONFIG_MODELS: dict[str, type[PostbackConfig] | type[Webhook]] = {
    Kind.POSTBACK: PostbackConfig, Kind.WEBHOOK: Webhook}


def configs_for_app(*, kind: str, app_id: uuid.UUID) -> QuerySet[PostbackConfig | Webhook]:
    """The app's postbacks or webhooks, oldest first."""
    return CONFIG_MODELS[kind].objects.filter(app_id=app_id).order_by("created_at", "id")


def configs_with_waiting(*, kind: str, app_id: uuid.UUID
                         ) -> QuerySet[PostbackConfig | Webhook]:
    """The app's postbacks or webhooks, oldest first, each with `waiting`: its deliveries that
    are pending and not yet attempted (docs/delivery.md, "Deliveries not yet attempted")."""
    unattempted = Q(deliveries__attempts_made=0, deliveries__state=State.PENDING)
    return configs_for_app(kind=kind, app_id=app_id).annotate(
        waiting=Count("deliveries", filter=unattempted))


def config_for_organization(*, kind: str, organization_id: uuid.UUID, config_id: uuid.UUID
                            ) -> PostbackConfig | Webhook | None:
    return CONFIG_MODELS[kind].objects.filter(
        id=config_id, app__organization_id=organization_id).select_related("app").first()


def failed_deliveries_of_config(*, kind: str, config_id: uuid.UUID,
                                delivery_ids: Iterable[uuid.UUID]) -> list[uuid.UUID]:
    """Those of `delivery_ids` that are failed deliveries of this configuration: the ones a
    user looking at its log may redeliver (any other id, another app's included, drops out)."""
    field = "postback_id" if kind == Kind.POSTBACK else "webhook_id"
    return list(Delivery.objects.filter(id__in=list(delivery_ids), state=State.FAILED,
                                        **{field: config_id}).values_list("id", flat=True))


# A log position: the moment of an entry and its id, an attempt's (int) or, for a delivery not
# yet attempted, the delivery's (UUID). See docs/delivery.md, "Deliveries not yet attempted".
Position = tuple[datetime, int | uuid.UUID]


@dataclass(frozen=True)
class LogPage:
    # Attempts, and for each delivery not yet attempted an unsaved attempt standing for it (no
    # id, no number, no start: only its delivery), so every entry reads the same way.
    entries: list[DeliveryAttempt]
    next_position: Position | None  # where the next page starts when older entries follow


def delivery_log(*, app_id: uuid.UUID, kind: str, limit: int,
                 config_id: uuid.UUID | None = None, states: Sequence[str] = (),
                 since: datetime | None = None, until: datetime | None = None,
                 before: Position | None = None) -> LogPage:
    """One page of the log, newest first: attempts by (started_at, id), and deliveries not yet
    attempted by (created_at, id), ahead of the attempts of the same moment. `since` is
    inclusive, `until` exclusive; `before` is a position from a previous page. Keyset paging
    reads each index from the position on, so a deep page costs what the first one does."""
    attempts = _attempts_page(app_id=app_id, kind=kind, limit=limit, config_id=config_id,
                              states=states, since=since, until=until, before=before)
    waiting = _unattempted_page(app_id=app_id, kind=kind, limit=limit, config_id=config_id,
                                states=states, since=since, until=until, before=before)
    merged = sorted([*attempts, *waiting], key=_log_key, reverse=True)
    if len(merged) <= limit:
        return LogPage(merged, None)
    moment, _, entry_id = _log_key(merged[limit - 1])
    return LogPage(merged[:limit], (moment, entry_id))


def _log_key(entry: DeliveryAttempt) -> tuple:
    if entry.id is None:
        return (entry.delivery.created_at, 1, entry.delivery_id)
    return (entry.started_at, 0, entry.id)


def _narrowed(rows: QuerySet, *, delivery: str, time: str, kind: str,
              config_id: uuid.UUID | None, states: Sequence[str], since: datetime | None,
              until: datetime | None) -> QuerySet:
    """The filters both halves of the log share. `delivery` is the path from a row to its
    delivery ("" for deliveries, "delivery__" for attempts); `time` the column a row is placed
    by in the log (`since` inclusive, `until` exclusive)."""
    if config_id is not None:
        config = "postback_id" if kind == Kind.POSTBACK else "webhook_id"
        rows = rows.filter(**{f"{delivery}{config}": config_id})
    if states:
        rows = rows.filter(**{f"{delivery}state__in": list(states)})
    if since is not None:
        rows = rows.filter(**{f"{time}__gte": since})
    if until is not None:
        rows = rows.filter(**{f"{time}__lt": until})
    return rows


def _attempts_page(*, app_id, kind, limit, config_id, states, since, until, before
                   ) -> list[DeliveryAttempt]:
    attempts = _narrowed(DeliveryAttempt.objects.filter(app_id=app_id, kind=kind),
                         delivery="delivery__", time="started_at", kind=kind,
                         config_id=config_id, states=states, since=since, until=until)
    if before is not None:
        moment, entry_id = before
        # (started_at, id) < position. The `<=` alone bounds the index scan; without it the
        # OR would be a filter applied to every entry from the newest one down. After an
        # unattempted delivery's position, every attempt of the same moment follows.
        attempts = attempts.filter(started_at__lte=moment)
        if isinstance(entry_id, int):
            attempts = attempts.filter(Q(started_at__lt=moment) | Q(id__lt=entry_id))
    return list(attempts.select_related("delivery").order_by("-started_at", "-id")[:limit + 1])


def _unattempted_page(*, app_id, kind, limit, config_id, states, since, until, before
                      ) -> list[DeliveryAttempt]:
    deliveries = _narrowed(Delivery.objects.filter(app_id=app_id, kind=kind, attempts_made=0),
                           delivery="", time="created_at", kind=kind, config_id=config_id,
                           states=states, since=since, until=until)
    if before is not None:
        moment, entry_id = before
        if isinstance(entry_id, int):  # after an attempt: only earlier moments
            deliveries = deliveries.filter(created_at__lt=moment)
        else:
            deliveries = deliveries.filter(created_at__lte=moment).filter(
                Q(created_at__lt=moment) | Q(id__lt=entry_id))
    rows = deliveries.order_by("-created_at", "-id")[:limit + 1]
    return [DeliveryAttempt(delivery=delivery, app_id=delivery.app_id, kind=delivery.kind,
                            id=None, number=None, http_method=None, url=None,
                            response_body=None, started_at=None) for delivery in rows]


# Readiness probes call this every few seconds: past this many, "at least" is enough to act on.
OVERDUE_COUNT_CAP = 10_000


@dataclass(frozen=True)
class Overdue:
    """Open deliveries later than the sweep would have let them be (see docs/delivery.md)."""

    count: int  # at most OVERDUE_COUNT_CAP
    oldest_due_at: datetime | None
    late_seconds: int  # the threshold: this long past due counts as overdue

    @property
    def capped(self) -> bool:
        return self.count >= OVERDUE_COUNT_CAP

    def oldest_late_seconds(self, now: datetime) -> int | None:
        """How long ago the oldest overdue delivery was due."""
        if self.oldest_due_at is None:
            return None
        return int((now - self.oldest_due_at).total_seconds())


def deliveries_overdue(*, now: datetime, late_seconds: int) -> Overdue:
    """Pending deliveries due more than `late_seconds` ago, and claimed ones whose worker's
    lease ran out that long ago. Both read the small index of open deliveries."""
    cutoff = now - timedelta(seconds=late_seconds)
    pending = Delivery.objects.filter(state=State.PENDING, next_attempt_at__lte=cutoff)
    stuck = Delivery.objects.filter(state=State.SENDING, lease_expires_at__lte=cutoff)
    count = pending.values("id")[:OVERDUE_COUNT_CAP].count()
    if count < OVERDUE_COUNT_CAP:
        count += stuck.values("id")[:OVERDUE_COUNT_CAP - count].count()
    oldest = None
    if count:
        dues = (
            pending.order_by("next_attempt_at").values_list("next_attempt_at", flat=True).first(),
            stuck.order_by("lease_expires_at").values_list("lease_expires_at", flat=True).first())
        oldest = min((due for due in dues if due is not None), default=None)
    return Overdue(count=count, oldest_due_at=oldest, late_seconds=late_seconds)


# What the owner's bucket receives of the delivery log (raw_export; docs/export.md): no body,
# no answer, and the address without its query string, which holds a postback's values.
EXPORT_ATTEMPT_FIELDS = (
    "app_id", "delivery_id", "number", "kind", "delivery__event_type", "delivery__source_id",
    "delivery__postback__media_source", "http_method", "url", "status_code", "succeeded",
    "error_message", "duration_ms", "started_at", "finished_at", "delivery__consent_note")
# An attempt ends within its lease (seconds), or is closed by the sweep within minutes: a day
# bounds the start of any attempt that ends in a window, which lets the log's (app, kind,
# started_at) index narrow the read.
_ATTEMPT_SPAN = timedelta(days=1)


def attempts_finished(*, app_ids: Sequence[uuid.UUID], since: datetime | None,
                      until: datetime) -> Iterator[tuple]:
    """Attempts of real (not test) deliveries that ended in [since, until) (since None: from
    the start), oldest first, as tuples in EXPORT_ATTEMPT_FIELDS order, ids as text."""
    rows = DeliveryAttempt.objects.filter(app_id__in=list(app_ids), delivery__is_test=False,
                                          finished_at__lt=until)
    if since is not None:
        rows = rows.filter(finished_at__gte=since, started_at__gte=since - _ATTEMPT_SPAN)
    url_at = EXPORT_ATTEMPT_FIELDS.index("url")
    with transaction.atomic():
        for row in (rows.order_by("finished_at", "id").values_list(*EXPORT_ATTEMPT_FIELDS)
                    .iterator(chunk_size=5_000)):
            yield (str(row[0]), str(row[1]), *row[2:url_at], row[url_at].split("?", 1)[0],
                   *row[url_at + 1:])
