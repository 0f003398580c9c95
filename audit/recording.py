"""The recorder the audit app hands to attribution_site/audit_trail.py at start: it turns what
a choke point saw (a request, what was sent, the answer) into an entry's plain values, with
audit/actions.py naming the action and target and audit/masking.py masking the secrets.
"""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import urlsplit

from django.contrib.auth import get_user_model
from django.urls import Resolver404, resolve
from django.utils import timezone

from attribution_site.api.client_ip import request_client_ip
from audit import actions, masking, services

LOGIN = "auth.login"
LOGIN_FAILED = "auth.login_failed"


def _sent(request, fields: Any) -> Any:
    """What was sent, as plain values: a console form as a dict, with its files by name (the
    API's `request.data` carries its files already)."""
    if not hasattr(fields, "lists"):
        return fields
    sent = masking.form_fields(fields)
    files = getattr(request, "FILES", None)
    if files is not None and not hasattr(request, "data"):
        sent.update(masking.form_fields(files))
    return sent


def _created_id(answer: Any) -> str:
    """The id the answer names: the API's body, or the page a console post goes to next."""
    location = getattr(answer, "url", None) if hasattr(answer, "status_code") else None
    if isinstance(location, str) and 300 <= answer.status_code < 400:
        try:
            match = resolve(urlsplit(location).path)
        except Resolver404:
            return ""
        return actions.url_object_id(match.kwargs)
    if hasattr(answer, "status_code"):
        return ""  # a page rendered in place names nothing
    return actions.answer_id(answer)


def bearer_credential(request) -> str:
    scheme, _, credential = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    return credential.strip() if scheme.lower() == "bearer" else ""


class AuditRecorder:
    """Entries for people's changes, logins, failed logins and tokens' further addresses."""

    def change(self, request, *, fields: Any, answer: Any) -> None:
        user = request.user
        if not getattr(user, "is_authenticated", False):
            return  # only a person's changes: a view open to anyone has no actor to name
        match = request.resolver_match
        url_kwargs = dict(match.kwargs) if match is not None else {}
        action = actions.action_of(match.url_name if match is not None else None,
                                   request.method, url_kwargs)
        target = actions.target_of(action, url_kwargs=url_kwargs,
                                   created_id=_created_id(answer))
        services.entry_record(
            organization_id=getattr(user, "organization_id", None), actor_id=user.pk,
            actor_email=user.email, action=action, target=target,
            changes=masking.masked(_sent(request, fields)), ip=request_client_ip(request),
            now=timezone.now())

    def login(self, request, *, user, method: str) -> None:
        services.entry_record(
            organization_id=user.organization_id, actor_id=user.pk, actor_email=user.email,
            action=LOGIN, target=str(user.pk), changes={"method": method},
            ip=request_client_ip(request), now=timezone.now())

    def login_failed(self, request, *, email: str, reason: str) -> None:
        # The entry goes to the organization of the person whose email was tried, so its
        # admins see someone guessing; an email no one has is seen by operators only.
        person = (get_user_model()._default_manager.filter(email__iexact=email.strip())
                  .only("id", "organization_id").first())
        services.entry_record(
            organization_id=person.organization_id if person else None, actor_id=None,
            actor_email=email.strip(), action=LOGIN_FAILED,
            target=str(person.pk) if person else "", changes={"reason": reason},
            ip=request_client_ip(request), now=timezone.now())

    def token_seen(self, request) -> None:
        credential = bearer_credential(request)
        user = request.user
        organization_id = getattr(user, "organization_id", None)
        if not credential or organization_id is None:
            return
        services.token_use_note(
            token_digest=hashlib.sha256(credential.encode()).hexdigest(),
            ip=request_client_ip(request), organization_id=organization_id,
            actor_id=user.pk, actor_email=user.email,
            # A JWT is three dot-separated parts; anything else is a personal access token.
            kind="jwt" if credential.count(".") == 2 else "personal_access_token",
            now=timezone.now())
