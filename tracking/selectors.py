"""Reads of tracking data: the waterfall's candidate clicks and the install trail for JWT users.

The lookups on the hot paths (`attribution_inputs` for /installs, `install_link_for_device` for
/events) use plain, prepared SQL on PostgreSQL: an ORM query costs ~0.6 ms of Python, the same
statement through the cursor ~0.1 ms, and preparing it saves the server its planning. Other
databases (the SQLite first-run default) compose the ORM functions below; tests check both
give the same rows.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import QuerySet

from attribution_site import prepared
from tracking.models import Click, Install, Reengagement
from tracking.waterfall_inputs import ClickCandidate

CANDIDATE_FIELDS = ("id", "clicked_at", "media_source", "campaign_id", "adset", "ad",
                    "advertising_id", "ip", "fingerprint", "os_family", "os_version",
                    "device_model", "accept_language")
MAX_DEVICE_CANDIDATES = 20
MAX_NETWORK_CANDIDATES = 50


def _candidates(rows) -> list[ClickCandidate]:
    """Rows of CANDIDATE_FIELDS, which are ClickCandidate's fields in its order."""
    return [ClickCandidate._make(row) for row in rows]


def _fast() -> bool:
    return connection.vendor == "postgresql"


def _raw(sql: str, params: list) -> list[tuple]:
    return prepared.fetch(sql, params)


def click_by_id(*, app_id: uuid.UUID, click_id: uuid.UUID) -> ClickCandidate | None:
    rows = Click.objects.filter(app_id=app_id, id=click_id).values_list(*CANDIDATE_FIELDS)
    found = _candidates(rows[:1])
    return found[0] if found else None


def clicks_for_device(*, app_id: uuid.UUID, advertising_id: str, since: datetime,
                      until: datetime) -> list[ClickCandidate]:
    rows = (Click.objects.filter(app_id=app_id, advertising_id=advertising_id,
                                 clicked_at__gte=since, clicked_at__lte=until)
            .order_by("-clicked_at").values_list(*CANDIDATE_FIELDS))
    return _candidates(rows[:MAX_DEVICE_CANDIDATES])


def clicks_for_network(*, app_id: uuid.UUID, ip_prefix: str, since: datetime,
                       until: datetime) -> list[ClickCandidate]:
    rows = (Click.objects.filter(app_id=app_id, ip_prefix=ip_prefix, clicked_at__gte=since,
                                 clicked_at__lte=until)
            .order_by("-clicked_at").values_list(*CANDIDATE_FIELDS))
    return _candidates(rows[:MAX_NETWORK_CANDIDATES])


@dataclass(frozen=True)
class AttributionInputs:
    """Everything the waterfall reads for one install request."""

    existing_install_id: uuid.UUID | None
    referrer_click: ClickCandidate | None
    device_clicks: list[ClickCandidate]
    network_clicks: list[ClickCandidate]


_CANDIDATE_COLUMNS = ("id, clicked_at, media_source, campaign_id, adset, ad, advertising_id, "
                      "host(ip), fingerprint, os_family, os_version, device_model, "
                      "accept_language")
_INSTALL_PART = (
    f"SELECT 'install', id, NULL::timestamptz, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
    f" NULL, NULL, NULL FROM {Install._meta.db_table} WHERE app_id = %s AND device_id = %s")
_REFERRER_PART = (f"SELECT 'referrer', {_CANDIDATE_COLUMNS} FROM {Click._meta.db_table} "
                  "WHERE app_id = %s AND id = %s")
_DEVICE_PART = (f"(SELECT 'device', {_CANDIDATE_COLUMNS} FROM {Click._meta.db_table} "
                "WHERE app_id = %s AND advertising_id = %s AND clicked_at >= %s AND "
                f"clicked_at <= %s ORDER BY clicked_at DESC LIMIT {MAX_DEVICE_CANDIDATES})")
_NETWORK_PART = (f"(SELECT 'network', {_CANDIDATE_COLUMNS} FROM {Click._meta.db_table} "
                 "WHERE app_id = %s AND ip_prefix = %s AND clicked_at >= %s AND "
                 f"clicked_at <= %s ORDER BY clicked_at DESC LIMIT {MAX_NETWORK_CANDIDATES})")


def attribution_inputs(*, app_id: uuid.UUID, device_id: str | None,
                       referrer_click_id: uuid.UUID | None, ip_prefix: str, since: datetime,
                       until: datetime) -> AttributionInputs:
    """The device's install (if any), the referrer's click and the candidate clicks, in one
    round trip on PostgreSQL: each statement to the database costs the install path about as
    much again in Python and server time as the lookup itself."""
    if not _fast():
        return AttributionInputs(
            existing_install_id=(Install.objects.filter(app_id=app_id, device_id=device_id)
                                 .values_list("id", flat=True).first() if device_id else None),
            referrer_click=(click_by_id(app_id=app_id, click_id=referrer_click_id)
                            if referrer_click_id else None),
            device_clicks=(clicks_for_device(app_id=app_id, advertising_id=device_id,
                                             since=since, until=until) if device_id else []),
            network_clicks=(clicks_for_network(app_id=app_id, ip_prefix=ip_prefix, since=since,
                                               until=until) if ip_prefix else []))
    parts, params = [], []
    if device_id:
        parts += [_INSTALL_PART, _DEVICE_PART]
        params += [app_id, device_id, app_id, device_id, since, until]
    if referrer_click_id:
        parts.append(_REFERRER_PART)
        params += [app_id, referrer_click_id]
    if ip_prefix:
        parts.append(_NETWORK_PART)
        params += [app_id, ip_prefix, since, until]
    rows = _raw(" UNION ALL ".join(parts), params) if parts else []
    by_kind: dict[str, list] = {"install": [], "referrer": [], "device": [], "network": []}
    for row in rows:
        by_kind[row[0]].append(row[1:])
    referrer = _candidates(by_kind["referrer"])
    return AttributionInputs(
        existing_install_id=by_kind["install"][0][0] if by_kind["install"] else None,
        referrer_click=referrer[0] if referrer else None,
        device_clicks=_candidates(by_kind["device"]),
        network_clicks=_candidates(by_kind["network"]))


def install_for_device(*, app_id: uuid.UUID, device_id: str) -> Install | None:
    return Install.objects.filter(app_id=app_id, device_id=device_id).first()


def install_link_for_device(*, app_id: uuid.UUID, device_id: str
                            ) -> tuple[uuid.UUID, str | None, str | None] | None:
    """(install id, media source, campaign) of the device's install, for linking events."""
    if _fast():
        rows = _raw(f"SELECT id, media_source, campaign_id FROM {Install._meta.db_table} "
                    "WHERE app_id = %s AND device_id = %s", [app_id, device_id])
        return rows[0] if rows else None
    return (Install.objects.filter(app_id=app_id, device_id=device_id)
            .values_list("id", "media_source", "campaign_id").first())


_REPEAT_FIELDS = ("id", "app_id", "device_id", "platform", "installed_at", "match_type",
                  "confidence", "is_organic", "media_source", "campaign_id",
                  "attributed_touch_time")
_REPEAT_SQL = (
    f"SELECT {', '.join(_REPEAT_FIELDS)}, (SELECT max(clicked_at) FROM "
    f"{Reengagement._meta.db_table} r WHERE r.install_id = i.id) "
    f"FROM {Install._meta.db_table} i WHERE i.id = %s")


def install_for_repeat(*, install_id: uuid.UUID) -> tuple[Install, datetime | None]:
    """A known device's install, with what a repeat answers (its other fields deferred), and
    the click time of its latest re-engagement (None before the first). One prepared
    statement on PostgreSQL, where the ORM took three queries."""
    if _fast():
        [row] = _raw(_REPEAT_SQL, [install_id])
        install = Install.from_db(connection.alias, _REPEAT_FIELDS, row[:-1])
        latest = row[-1]
    else:
        install = Install.objects.only(*_REPEAT_FIELDS).get(id=install_id)
        latest = (Reengagement.objects.filter(install_id=install_id).order_by("-clicked_at")
                  .values_list("clicked_at", flat=True).first())
    return install, latest


def installs_for_app(*, app_id: uuid.UUID, device_id: str | None = None) -> QuerySet[Install]:
    installs = Install.objects.filter(app_id=app_id).order_by("-installed_at", "-id")
    if device_id:
        installs = installs.filter(device_id=device_id.strip().lower())
    return installs.prefetch_related("reengagements")


def install_for_organization(*, organization_id: uuid.UUID, install_id: uuid.UUID
                             ) -> Install | None:
    return (Install.objects.filter(id=install_id, app__organization_id=organization_id)
            .prefetch_related("reengagements").first())
