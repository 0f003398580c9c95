"""Erasure and access for one data subject in delivery's tables (docs/privacy.md, "Erasure and
access (OpenDSR)"): the postbacks and webhooks sent about the subject's installs, events and
re-engagements keep their rows and log entries, with the device id blanked wherever it was
written: the frozen body, the resolved URL of each attempt, and the receiver's answer.

The id is replaced by nothing inside the text, so a JSON body stays JSON (`"device_id": ""`)
and a pending retry sends the same message without it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from functools import reduce
from operator import or_
from urllib.parse import quote

from django.db import transaction
from django.db.models import Q

from delivery.models import Delivery, DeliveryAttempt


def scrub(text: str, secrets: Iterable[str]) -> str:
    """`text` without any of `secrets`, as written or percent-encoded (a rendered URL)."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "").replace(quote(secret, safe=""), "")
    return text


def _deliveries(app_id: uuid.UUID, install_ids, device_ids):
    match = [Q(source_id__in=[str(i) for i in install_ids]), Q(install_id__in=install_ids)]
    match += [Q(body__contains=device_id) for device_id in device_ids if device_id]
    return Delivery.objects.filter(app_id=app_id).filter(reduce(or_, match))


def erase(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID],
          device_ids: Iterable[str]) -> dict[str, int]:
    """Blank the device ids in the subject's deliveries and their attempts; rows touched."""
    install_ids, device_ids = tuple(install_ids), tuple(d for d in device_ids if d)
    deliveries = attempts = 0
    with transaction.atomic():
        for delivery in _deliveries(app_id, install_ids, device_ids).only("id", "body"):
            deliveries += 1
            Delivery.objects.filter(id=delivery.id).update(
                body=scrub(delivery.body, device_ids))
            for attempt in DeliveryAttempt.objects.filter(delivery_id=delivery.id).only(
                    "id", "url", "response_body"):
                attempts += 1
                DeliveryAttempt.objects.filter(id=attempt.id).update(
                    url=scrub(attempt.url, device_ids),
                    response_body=scrub(attempt.response_body, device_ids))
    return {Delivery._meta.db_table: deliveries, DeliveryAttempt._meta.db_table: attempts}


def records_for(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID],
                device_ids: Iterable[str]) -> dict[str, list[dict]]:
    """The subject's deliveries, each with its attempts (URL, status, when)."""
    rows = []
    deliveries = _deliveries(app_id, tuple(install_ids), tuple(d for d in device_ids if d))
    for delivery in deliveries.order_by("created_at").prefetch_related("attempts"):
        rows.append({
            "id": delivery.id, "kind": delivery.kind, "event_type": delivery.event_type,
            "source_id": delivery.source_id, "state": delivery.state, "body": delivery.body,
            "created_at": delivery.created_at,
            "attempts": [{"number": a.number, "url": a.url, "status_code": a.status_code,
                          "started_at": a.started_at} for a in delivery.attempts.all()],
        })
    return {"deliveries": rows}
