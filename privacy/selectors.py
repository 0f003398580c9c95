"""Reads of data-subject requests: one of an organization's, an app's list, an access
document's link, and the document by its signed link (docs/privacy.md)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import QuerySet

from privacy import links
from privacy.models import AccessDocument, RequestStatus, RequestType, SubjectRequest


def _with_document_time(requests: QuerySet[SubjectRequest]) -> QuerySet[SubjectRequest]:
    # The run and the document's time (for its link) in the same query; the document's body
    # stays in the database.
    return requests.select_related("app", "run", "document").defer("document__body")


def request_for_organization(*, organization_id: uuid.UUID, request_id: uuid.UUID
                             ) -> SubjectRequest | None:
    return _with_document_time(SubjectRequest.objects.filter(
        id=request_id, app__organization_id=organization_id)).first()


def requests_for_app(*, app_id: uuid.UUID) -> QuerySet[SubjectRequest]:
    return _with_document_time(SubjectRequest.objects.filter(app_id=app_id)).order_by(
        "-received_time", "-id")


def results_url(subject_request: SubjectRequest) -> str | None:
    """The access document's link (absolute when the request's base URL is known); None for
    an erasure or before the request completed."""
    if subject_request.request_type == RequestType.ERASURE or \
            subject_request.status != RequestStatus.COMPLETED:
        return None
    path = f"/api/v1/privacy/documents/{links.document_token(subject_request.id)}"
    return subject_request.base_url.rstrip("/") + path


@dataclass(frozen=True)
class Document:
    body: dict
    expires_at: datetime


def document_by_token(*, token: str, now: datetime) -> Document | None:
    """The document the link names while it is kept; None for a link not made here, a
    document gone, or one past its lifetime."""
    request_id = links.document_token_read(token)
    if request_id is None:
        return None
    document = AccessDocument.objects.filter(request_id=request_id).first()
    if document is None:
        return None
    expires_at = links.document_expires_at(document.created_at)
    if expires_at <= now:
        return None
    return Document(body=document.body, expires_at=expires_at)


def document_expires_at(subject_request: SubjectRequest) -> datetime | None:
    """When the request's document link stops working; None when it has no document."""
    try:
        document = subject_request.document
    except AccessDocument.DoesNotExist:
        return None
    return links.document_expires_at(document.created_at)
