"""Reads of Apple Ads claims for other apps: the installs Apple's record moved, for the raw-data
export's `reattributions` topic (docs/export.md)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from datetime import datetime

from django.db import transaction

from apple_ads import policy
from apple_ads.models import Claim


def reattributions_for_export(*, app_ids: Sequence[uuid.UUID], since: datetime | None,
                              until: datetime) -> Iterator[tuple]:
    """Claims that moved their install to Apple Ads and ended in [since, until) (since None:
    from the start), oldest first: (app_id, claim_id, install_id, completed_at, click_date,
    media_source, campaign_id, ad_group_id, ad), ids as text."""
    rows = Claim.objects.filter(app_id__in=list(app_ids), reattributed=True,
                                completed_at__lt=until)
    if since is not None:
        rows = rows.filter(completed_at__gte=since)
    with transaction.atomic():
        for claim_id, app_id, install_id, completed_at, answer in (
                rows.order_by("completed_at", "id")
                .values_list("id", "app_id", "install_id", "completed_at", "answer")
                .iterator(chunk_size=2_000)):
            record = policy.attribution_record(answer or {})
            if record is None:  # a moved install always has its record; kept safe anyway
                continue
            yield (str(app_id), str(claim_id), str(install_id), completed_at,
                   record.click_date, policy.MEDIA_SOURCE, record.campaign_id,
                   record.ad_group_id, record.ad)
