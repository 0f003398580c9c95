"""Reads for Apple measurement (docs/apple.md): the media source name of an ad network id, for
the SKAdNetwork reports, and the postbacks of an app. Other apps (the conversion report) read
postbacks only through `postbacks_received`, in plain values."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import QuerySet

from skan.models import AdNetwork, AppAdNetworkName, Postback


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


def postbacks_of_app(*, app_id) -> QuerySet[Postback]:
    return Postback.objects.filter(app_id=app_id).order_by("-received_at")


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
