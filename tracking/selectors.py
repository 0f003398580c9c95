"""Reads of tracking data off the hot paths: the installs and their decision trails for JWT
users, and the stored install a racing first launch answers with. The hot paths' reads (the
waterfall's lookup, a repeat install, the event link) are in tracking/sql.py.
"""

from __future__ import annotations

import uuid

from django.db.models import QuerySet

from tracking.models import Install


def install_for_device(*, app_id: uuid.UUID, device_id: str) -> Install | None:
    return Install.objects.filter(app_id=app_id, device_id=device_id).first()


def installs_for_app(*, app_id: uuid.UUID, device_id: str | None = None) -> QuerySet[Install]:
    installs = Install.objects.filter(app_id=app_id).order_by("-installed_at", "-id")
    if device_id:
        installs = installs.filter(device_id=device_id.strip().lower())
    return installs.prefetch_related("reengagements")


def install_for_organization(*, organization_id: uuid.UUID, install_id: uuid.UUID
                             ) -> Install | None:
    return (Install.objects.filter(id=install_id, app__organization_id=organization_id)
            .prefetch_related("reengagements").first())
