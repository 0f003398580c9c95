"""What a request's end writes (docs/privacy.md, "Callbacks", "When a run fails"): the status
callbacks of a request that completed, was cancelled or failed, a request failed for good, and
the access documents past their lifetime deleted. Each writes rows in the caller's transaction;
the caller sends the callbacks once it commits (privacy.enqueue), so this module sends nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from privacy import callbacks, links, selectors
from privacy.models import AccessDocument, RequestStatus, StatusCallback, SubjectRequest

OPEN = (RequestStatus.PENDING, RequestStatus.IN_PROGRESS)


def callbacks_write(subject_request: SubjectRequest, *, now: datetime) -> list[str]:
    """One callback row per URL with the status as it is now. Returns their ids."""
    if not subject_request.status_callback_urls:
        return []
    completed = subject_request.status == RequestStatus.COMPLETED
    count = sum(subject_request.found.values()) if subject_request.found else None
    rows = [StatusCallback(
        request=subject_request, url=url, next_attempt_at=now, created_at=now, updated_at=now,
        body=callbacks.callback_body(
            controller_id=str(subject_request.app.organization_id), status_callback_url=url,
            subject_request_id=str(subject_request.id), request_status=subject_request.status,
            expected_completion_time=subject_request.expected_completion_time,
            api_version=subject_request.api_version,
            results_url=selectors.results_url(subject_request),
            results_count=count if completed else None))
        for url in subject_request.status_callback_urls]
    StatusCallback.objects.bulk_create(rows)
    return [str(row.id) for row in rows]


def requests_fail(*, request_ids: Sequence[uuid.UUID], now: datetime) -> list[str]:
    """Requests whose run failed for good (its last try raised, or the sweep gave it up):
    `failed`, the identity blanked as at any end, a callback to each URL. Returns the
    callbacks' ids."""
    ended = SubjectRequest.objects.filter(id__in=list(request_ids), status__in=OPEN)
    failed_ids = list(ended.values_list("id", flat=True))
    ended.update(status=RequestStatus.FAILED, completed_at=now, updated_at=now,
                 identity_value="", encoded_request="")
    callback_ids = []
    for subject_request in SubjectRequest.objects.select_related("app").filter(
            id__in=failed_ids):
        callback_ids += callbacks_write(subject_request, now=now)
    return callback_ids


def documents_prune(*, now: datetime) -> int:
    """Delete access documents past their lifetime (personal data; their links answer 404
    already). Returns how many."""
    deleted, _ = AccessDocument.objects.filter(
        created_at__lte=now - links.DOCUMENT_LIFETIME).delete()
    return deleted
