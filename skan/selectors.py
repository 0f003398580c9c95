"""Reads for Apple measurement (docs/apple.md): the media source name of an ad network id, for
the SKAdNetwork reports, the postbacks of an app, and the refused postbacks that name an app's
App Store id. Other apps (the conversion report) read postbacks only through
`postbacks_received`, in plain values."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.db import transaction
from django.db.models import QuerySet

from skan.models import (
    AdNetwork,
    AppAdNetworkName,
    CampaignMapping,
    Postback,
    RefusalReason,
    RefusedPostback,
)


def media_source_for(*, app_id, ad_network_id: str) -> str:
    """The app's own name for the network, else the shared table's, else the id itself (so a
    network nobody has named still shows as something a reader can look up)."""
    network_id = ad_network_id.strip().lower()
    own = AppAdNetworkName.objects.filter(app_id=app_id, network_id=network_id).values_list(
        "name", flat=True).first()
    if own:
        return own
    shared = AdNetwork.objects.filter(network_id=network_id).values_list(
        "name", flat=True).first()
    return shared or network_id


def media_sources_for(*, app_id) -> dict[str, str]:
    """Every named network id for one app, the app's own names winning: one query per table,
    for reports that name many rows at once (ids absent here show as themselves)."""
    names = dict(AdNetwork.objects.values_list("network_id", "name"))
    names.update(AppAdNetworkName.objects.filter(app_id=app_id).values_list("network_id", "name"))
    return names


def app_ad_network_names(*, app_id) -> QuerySet[AppAdNetworkName]:
    return AppAdNetworkName.objects.filter(app_id=app_id).order_by("network_id")


def campaign_mappings(*, app_id) -> QuerySet[CampaignMapping]:
    return CampaignMapping.objects.filter(app_id=app_id).order_by("media_source",
                                                                  "source_identifier")


def campaign_of(*, app_id) -> dict[tuple[str, str], str]:
    """(media source, source identifier) -> the network's campaign id, for the cost report."""
    return {(m.media_source, m.source_identifier): m.campaign_id
            for m in campaign_mappings(app_id=app_id)}


@dataclass(frozen=True)
class ReceivedPostback:
    """A verified postback as stored: the fields a report decodes."""

    received_at: datetime
    postback_sequence_index: int
    ad_network_id: str
    source_identifier: str
    fine_value: int | None
    coarse_value: str  # "" when Apple sent none
    did_win: bool | None
    redownload: bool | None
    conversion_type: str


def postbacks_received(*, app_id: uuid.UUID, since: datetime, until: datetime
                       ) -> list[ReceivedPostback]:
    """The app's postbacks received in [since, until): bounded by the (app, received_at)
    index."""
    rows = Postback.objects.filter(app_id=app_id, received_at__gte=since,
                                   received_at__lt=until).values_list(
        "received_at", "postback_sequence_index", "ad_network_id", "source_identifier",
        "fine_value", "coarse_value", "did_win", "redownload", "conversion_type")
    return [ReceivedPostback(*row) for row in rows]


EXPORT_POSTBACK_FIELDS = (
    "app_id", "id", "received_at", "framework", "version", "ad_network_id", "media_source",
    "transaction_id", "postback_sequence_index", "source_identifier", "campaign_id",
    "source_app_id", "source_domain", "fidelity_type", "redownload", "did_win", "fine_value",
    "coarse_value", "country_code", "conversion_type", "marketplace", "verdict")


def postbacks_for_export(*, app_ids: Sequence[uuid.UUID], since: datetime | None,
                         until: datetime) -> Iterator[tuple]:
    """The apps' postbacks received in [since, until) (since None: from the start), oldest
    first, as tuples in EXPORT_POSTBACK_FIELDS order (the raw body left out), each network
    named as the reports name it."""
    for app_id in app_ids:
        rows = Postback.objects.filter(app_id=app_id, received_at__lt=until)
        if since is not None:
            rows = rows.filter(received_at__gte=since)
        names = None
        with transaction.atomic():
            for row in (rows.order_by("received_at", "id").values_list(
                    "id", "received_at", "framework", "version", "ad_network_id",
                    "transaction_id", "postback_sequence_index", "source_identifier",
                    "campaign_id", "source_app_id", "source_domain", "fidelity_type",
                    "redownload", "did_win", "fine_value", "coarse_value", "country_code",
                    "conversion_type", "marketplace", "verdict").iterator(chunk_size=5_000)):
                if names is None:
                    names = media_sources_for(app_id=app_id)
                network = row[4].strip().lower()
                yield (str(app_id), str(row[0]), *row[1:5], names.get(network, network),
                       *row[5:])


# A refusal's reason as the console says it; the stored detail then says what exactly.
REFUSAL_WORDS = {
    RefusalReason.BAD_SIGNATURE: "Apple's signature does not verify: not sent by Apple, or "
                                 "changed on the way.",
    RefusalReason.UNKNOWN_APP: "No app here had this App Store id when it arrived.",
    RefusalReason.AMBIGUOUS_APP: "More than one app here has this App Store id, so it counts "
                                 "for none.",
    RefusalReason.MALFORMED: "Not a postback as Apple sends them.",
    RefusalReason.UNSUPPORTED_VERSION: "A SKAdNetwork version this service does not read.",
    RefusalReason.DEVELOPMENT_KEY: "Signed with Apple's development key (a test postback): "
                                   "counted only where SKAN_ACCEPT_DEVELOPMENT_POSTBACKS=1.",
}


FRAMEWORK_WORDS = {"skadnetwork": "SKAdNetwork", "adattributionkit": "AdAttributionKit"}


@dataclass(frozen=True)
class RefusedEntry:
    received_at: datetime
    framework: str  # as Apple spells it: SKAdNetwork, AdAttributionKit
    reason: str  # a RefusalReason value
    reason_words: str
    detail: str
    transaction_id: str


@dataclass(frozen=True)
class Refusals:
    count: int
    latest: list[RefusedEntry]


def refusals_naming(*, app_store_id: str | None, start: date, end: date,
                    limit: int = 20) -> Refusals:
    """The refused postbacks that arrived on the UTC days `start`..`end` naming the App Store
    id: how many, and the latest `limit`. A refusal belongs to no app (it was refused before
    one was found, or because none was), so the App Store id it names is what ties it to one;
    bodies that name none cannot be told apart per app (operators read them in the admin)."""
    if not app_store_id:
        return Refusals(count=0, latest=[])
    since = datetime.combine(start, time.min, tzinfo=UTC)
    until = datetime.combine(end + timedelta(days=1), time.min, tzinfo=UTC)
    rows = RefusedPostback.objects.filter(app_store_id=app_store_id, received_at__gte=since,
                                          received_at__lt=until)
    latest = rows.order_by("-received_at", "-id").values_list(
        "received_at", "framework", "reason", "detail", "transaction_id")[:limit]
    return Refusals(count=rows.count(), latest=[
        RefusedEntry(received_at=received_at, framework=FRAMEWORK_WORDS.get(framework, framework),
                     reason=reason,
                     reason_words=REFUSAL_WORDS.get(reason, reason), detail=detail,
                     transaction_id=transaction_id)
        for received_at, framework, reason, detail, transaction_id in latest])
