"""Erasure and access for one data subject in Google Ads claims (docs/privacy.md, "Erasure and
access (OpenDSR)"): a claim of one of the subject's installs loses what identifies the device
(advertising id, Google's click id, address, User-Agent) and the raw answers Google gave; it
keeps its state and Google's reading of the campaign (`answer`), which the install's
attribution rests on and which names no person.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.db import transaction

from networks.models import GoogleClaim, GoogleClaimAttempt


def erase(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID],
          device_ids: Iterable[str]) -> dict[str, int]:
    """Clear the device's identifiers and the attempts' response bodies; rows touched."""
    claims = GoogleClaim.objects.filter(app_id=app_id, install_id__in=list(install_ids))
    with transaction.atomic():
        attempts = GoogleClaimAttempt.objects.filter(claim__in=claims).update(
            response_body="", url="")
        touched = claims.update(rdid="", gclid="", gbraid="", ip=None, user_agent="")
    return {GoogleClaim._meta.db_table: touched, GoogleClaimAttempt._meta.db_table: attempts}


def records_for(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID],
                device_ids: Iterable[str]) -> dict[str, list[dict]]:
    return {"google_ads_claims": list(
        GoogleClaim.objects.filter(app_id=app_id, install_id__in=list(install_ids))
        .order_by("received_at").values("id", "install_id", "state", "received_at",
                                        "completed_at", "answer", "reattributed",
                                        "cross_network"))}
