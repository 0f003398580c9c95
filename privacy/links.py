"""The link to an access document (docs/privacy.md, "Access and portability"): the request's
id signed with SECRET_KEY (django.core.signing), so it cannot be guessed from the id, valid
while the document is kept: DOCUMENT_LIFETIME after it was made, after which beat deletes the
document and the link answers 404.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from django.core import signing

DOCUMENT_LIFETIME = timedelta(days=7)
_SALT = "privacy.access-document"


def document_token(request_id: uuid.UUID) -> str:
    return signing.Signer(salt=_SALT).sign(str(request_id))


def document_token_read(token: str) -> uuid.UUID | None:
    """The request id the token was made for, or None when it was not made here."""
    try:
        return uuid.UUID(signing.Signer(salt=_SALT).unsign(token))
    except (signing.BadSignature, ValueError):
        return None


def document_expires_at(created_at: datetime) -> datetime:
    return created_at + DOCUMENT_LIFETIME
