"""Reads of tracking data off the hot paths: the installs and their decision trails for JWT
users and the console (whose list pages with a keyset cursor), an install's events and revenue for
its console page, and the stored install a racing
first launch answers with. The hot paths' reads (the waterfall's lookup, a repeat install, the
event link) are in tracking/sql.py.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from django.db.models import Case, Count, Q, QuerySet, Sum, When
from django.db.models.fields.json import KT

from fraud.rules import engagement_counts
from fraud.verdict import CLEAN
from tracking.attribution import WINDOW, usable_device_id
from tracking.models import CampaignName, ClickArchive, Event, Install
from tracking.sql import MAX_DEVICE_CANDIDATES
from tracking.trail_words import DeviceClicks

DEVICE_ID_LENGTH = Install._meta.get_field("device_id").max_length


def campaign_names(*, app_id: uuid.UUID) -> dict[tuple[str, str], str]:
    """(media source, campaign id) -> the newest name a platform gave it, for the reports."""
    names: dict[tuple[str, str], str] = {}
    for media_source, campaign_id, name in (
            CampaignName.objects.filter(app_id=app_id).order_by("first_seen_at", "id")
            .values_list("media_source", "campaign_id", "name")):
        names[(media_source, campaign_id)] = name
    return names


def install_for_device(*, app_id: uuid.UUID, device_id: str) -> Install | None:
    return Install.objects.filter(app_id=app_id, device_id=device_id).first()


def consent_identity(app_id: uuid.UUID, install_id: uuid.UUID | None, device_id: str | None
                     ) -> tuple[uuid.UUID | None, str | None] | None:
    """Consent's reader of who a POST /consent is about (consent.services.IdentityReader): the
    install's id and device id, or the device id as installs store it with its install's id
    when it has one; None for an install id that is not one of the app's."""
    if install_id is not None:
        row = (Install.objects.filter(app_id=app_id, id=install_id)
               .values_list("id", "device_id").first())
        return None if row is None else (row[0], row[1])
    device_id = usable_device_id(device_id)
    if device_id is None:
        return None, None
    install = Install.objects.filter(app_id=app_id, device_id=device_id).values_list(
        "id", flat=True).first()
    return install, device_id


def installs_for_app(*, app_id: uuid.UUID, device_id: str | None = None) -> QuerySet[Install]:
    installs = Install.objects.filter(app_id=app_id).order_by("-installed_at", "-id")
    if device_id:
        device_id = device_id.strip().lower()
        if len(device_id) > DEVICE_ID_LENGTH or "\x00" in device_id:
            return installs.none()  # no stored id is like it (and PostgreSQL refuses a NUL)
        installs = installs.filter(device_id=device_id)
    return installs.prefetch_related("reengagements")


def installs_of_device(*, app_id: uuid.UUID, device_id: str, limit: int) -> list[Install]:
    """The console's device search: the API's filter, with the refused claim of each."""
    return list(installs_for_app(app_id=app_id, device_id=device_id)
                .annotate(**REFUSED_CLAIM)[:limit])


def install_for_organization(*, organization_id: uuid.UUID, install_id: uuid.UUID
                             ) -> Install | None:
    return (Install.objects.filter(id=install_id, app__organization_id=organization_id)
            .prefetch_related("reengagements").first())


@dataclass(frozen=True)
class InstallCursor:
    """Where a page of installs ends: the last install's (installed_at, id). As text it is
    `<epoch microseconds>_<id>`, which a URL carries without escaping."""

    installed_at: datetime
    id: uuid.UUID

    def __str__(self) -> str:
        return f"{(self.installed_at - _EPOCH) // timedelta(microseconds=1)}_{self.id}"

    @classmethod
    def parse(cls, text: str | None) -> InstallCursor | None:
        """The cursor, or None for anything not written by `str` (a first page)."""
        micros, _, install_id = (text or "").partition("_")
        try:
            return cls(_EPOCH + timedelta(microseconds=int(micros)), uuid.UUID(install_id))
        except (ValueError, OverflowError):
            return None


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# What a list of installs shows; the trail and the raw request stay in the database until an
# install's own page asks for them, but for the claim the fraud rules refused (a blocked
# install is stored organic: tracking/fraud_gate.py).
_LIST_COLUMNS = ("id", "app_id", "device_id", "platform", "installed_at", "match_type",
                 "confidence", "is_organic", "media_source", "campaign_id", "fraud_status",
                 "fraud_reasons")
# Read only for installs the rules touched: a CASE leaves a clean install's trail unread.
REFUSED_CLAIM = {f"refused_{key}": Case(When(~Q(fraud_status=CLEAN),
                                              then=KT(f"decision__fraud__refused__{key}")))
                 for key in ("media_source", "campaign_id")}
# How many installs one page with a fraud-status filter looks through: no index has the
# status, and a status no install has must not read the app's every install to say so.
FILTER_SCAN = 5_000


@dataclass(frozen=True)
class InstallsPage:
    installs: list[Install]
    next_cursor: InstallCursor | None  # None on the last page
    # With a filter, when the page ends before `limit` matches: the oldest install looked at
    # (the next page goes on from it); None when the page is full or the app has no more.
    searched_to: datetime | None = None


def installs_page(*, app_id: uuid.UUID, after: InstallCursor | None = None, limit: int = 50,
                  fraud_statuses: Iterable[str] | None = None) -> InstallsPage:
    """The app's installs newest first, those after `after` (the previous page's last), and the
    cursor of the next page. Keyset paging on install_app_time_idx: each page reads `limit + 1`
    rows wherever it is, and nothing counts the table. With `fraud_statuses`, only installs of
    those statuses, among at most FILTER_SCAN installs a page (their id, time and status)."""
    installs = Install.objects.filter(app_id=app_id)
    if after is not None:
        # The `lte` bound gives the index a range to scan; the OR breaks ties on the id.
        installs = installs.filter(installed_at__lte=after.installed_at).filter(
            Q(installed_at__lt=after.installed_at) | Q(id__lt=after.id))
    installs = installs.order_by("-installed_at", "-id")
    if fraud_statuses is not None:
        return _filtered_page(installs, frozenset(fraud_statuses), limit)
    rows = list(installs.only(*_LIST_COLUMNS).annotate(**REFUSED_CLAIM)[:limit + 1])
    if len(rows) <= limit:
        return InstallsPage(rows, None)
    last = rows[limit - 1]
    return InstallsPage(rows[:limit], InstallCursor(last.installed_at, last.id))


def _filtered_page(installs: QuerySet[Install], statuses: frozenset[str],
                   limit: int) -> InstallsPage:
    looked_at = list(installs.values_list("id", "installed_at", "fraud_status")[:FILTER_SCAN])
    matching = [(install_id, at) for install_id, at, status in looked_at if status in statuses]
    shown = [install_id for install_id, _ in matching[:limit]]
    rows = list(Install.objects.filter(id__in=shown).order_by("-installed_at", "-id")
                .only(*_LIST_COLUMNS).annotate(**REFUSED_CLAIM))
    if len(matching) > limit:
        return InstallsPage(rows, InstallCursor(matching[limit - 1][1], matching[limit - 1][0]))
    if len(looked_at) < FILTER_SCAN:
        return InstallsPage(rows, None)
    last_id, last_at, _ = looked_at[-1]
    return InstallsPage(rows, InstallCursor(last_at, last_id), searched_to=last_at)


@dataclass(frozen=True)
class InstallEvents:
    """An install's latest events (newest first), how many it has in all, and its revenue per
    currency as sent (no conversion: the install page shows what the app reported)."""

    latest: list
    total: int
    revenue: list[tuple[str, Decimal]]


def events_of_install(*, install_id: uuid.UUID, limit: int = 50) -> InstallEvents:
    events = Event.objects.filter(install_id=install_id)
    latest = list(events.order_by("-occurred_at", "-id")[:limit])
    total = len(latest) if len(latest) < limit else events.count()
    revenue = [(row["revenue_currency"], row["amount"]) for row in
               events.filter(revenue_amount__isnull=False).values("revenue_currency")
               .annotate(amount=Sum("revenue_amount"), n=Count("id"))
               .order_by("revenue_currency")]
    return InstallEvents(latest=latest, total=total, revenue=revenue)


@dataclass(frozen=True)
class InstallDevice:
    """What an install told us about its device, for a platform's conversion request."""

    platform: str
    device_id: str | None
    os_version: str
    sdk_version: str
    device_model: str
    language: str
    ip: str | None
    user_agent: str


def install_device(*, install_id: uuid.UUID) -> InstallDevice | None:
    row = Install.objects.filter(id=install_id).values(
        "platform", "device_id", "os_version", "sdk_version", "device_model", "language", "ip",
        "user_agent").first()
    return InstallDevice(**row) if row else None


# The most of one device's clicks an install's page counts (a flood may send millions).
DEVICE_CLICKS_COUNTED = 10_000


@dataclass(frozen=True)
class _CountedClick:
    """What fraud.rules.engagement_counts reads of a click."""

    id: uuid.UUID
    clicked_at: datetime
    media_source: str
    advertising_id: str
    fingerprint: str = ""


def device_clicks_of_window(*, app_id: uuid.UUID, device_id: str | None, installed_at: datetime,
                            clicks_listed: int) -> DeviceClicks | None:
    """The install's device's clicks of its window in the click archive, and per click the
    most clicks of the device for its source in an hour holding it (the too_many_engagements
    count, fraud.rules), for an install page. The decision reads only a device's
    MAX_DEVICE_CANDIDATES latest clicks (tracking/sql.py), so a trail naming that many clicks
    may have seen part of a flood: only then is it counted, here, off the hot path. None
    otherwise (nothing is read). The archive is read, not the hot store, which drops clicks
    a week after they were made: through its (app, clicked_at) index over the install's
    window, at most DEVICE_CLICKS_COUNTED of the device's clicks."""
    device_id = usable_device_id(device_id)
    if device_id is None or clicks_listed < MAX_DEVICE_CANDIDATES:
        return None
    rows = list(ClickArchive.objects.filter(
        app_id=app_id, advertising_id=device_id, clicked_at__gte=installed_at - WINDOW,
        clicked_at__lte=installed_at).order_by("-clicked_at")
        .values_list("id", "clicked_at", "media_source")[:DEVICE_CLICKS_COUNTED + 1])
    complete = len(rows) <= DEVICE_CLICKS_COUNTED
    clicks = [_CountedClick(click_id, clicked_at, source or "", device_id)
              for click_id, clicked_at, source in rows[:DEVICE_CLICKS_COUNTED]]
    counts = engagement_counts(clicks)
    return DeviceClicks(total=len(clicks), complete=complete, read=MAX_DEVICE_CANDIDATES,
                        bursts={str(click_id): n for click_id, n in counts.items()})


def installs_of_clicks(*, app_ids: Collection[uuid.UUID],
                       click_ids: Collection[uuid.UUID]) -> dict[uuid.UUID, uuid.UUID]:
    """The install each of these clicks won ({click id: install id}): the web-to-app report
    counts the installs its banner clicks brought (web_to_app/selectors.py)."""
    if not click_ids:
        return {}
    return dict(Install.objects.filter(app_id__in=list(app_ids), click_id__in=list(click_ids))
                .values_list("click_id", "id"))


def installs_of_customers(*, app_ids: Collection[uuid.UUID],
                          customer_user_ids: Collection[str], since: datetime,
                          until: datetime) -> list[tuple[str, uuid.UUID]]:
    """(customer user id, install id) of the apps' installs made in [since, until) by these
    customers: the installs a web journey joins by customer id."""
    if not customer_user_ids:
        return []
    return list(Install.objects.filter(
        app_id__in=list(app_ids), customer_user_id__in=list(customer_user_ids),
        installed_at__gte=since, installed_at__lt=until).values_list("customer_user_id", "id"))


# The web journey of an install (docs/web.md, "Install detail"): `web: {web_id, landing_url,
# referrer_host, visit_media_source, visit_campaign}` where known. Apps that know it register a
# reader (web/ for a web app's own installs; a web-to-app journey for an app install may
# register its own); the first answer that is not None is the install's.
WebJourneyReader = Callable[[Install], "dict | None"]
_web_journey_readers: list[WebJourneyReader] = []


def web_journey_reader_register(reader: WebJourneyReader) -> None:
    """Take a reader of an install's web journey; the first that knows the install answers."""
    if reader not in _web_journey_readers:
        _web_journey_readers.append(reader)


def web_journey_of(install: Install) -> dict | None:
    for reader in _web_journey_readers:
        journey = reader(install)
        if journey is not None:
            return journey
    return None
