"""The audit log's query and output (docs/teams.md, "Audit log"): `actor` (a member's id or
email), `action` (`postbacks.create`, or `postbacks` for all of a resource), `since`
(inclusive) and `until` (exclusive) as ISO 8601, `limit` and `cursor`; a 400 names every bad
parameter at once. The cursor is opaque to clients, as the delivery logs' is."""

from __future__ import annotations

import base64
import json
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from rest_framework import serializers

from attribution_site.api.exceptions import ValidationFailed
from attribution_site.api.pagination import MAX_LIMIT, limit_parse
from audit.selectors import EntryFilter, Position

CURSOR_MESSAGE = "Invalid cursor: pass the next_cursor of a previous page unchanged."
MOMENT_MESSAGE = ("Must be an ISO 8601 date-time, e.g. 2024-05-01T12:00:00Z (no offset means "
                  "UTC; send + as %2B).")
ACTOR_MESSAGE = "Must be a member's id (a UUID) or email."
ACTION_MESSAGE = ("Must be an action such as postbacks.create, or a resource such as "
                  "postbacks for all of its actions.")
_ACTION = re.compile(r"[a-z0-9_]{1,60}(\.[a-z0-9_]{1,40})?")


@dataclass(frozen=True)
class AuditQuery:
    limit: int
    filters: EntryFilter
    before: Position | None


def cursor_of(position: Position | None) -> str | None:
    if position is None:
        return None
    moment, entry_id = position
    text = json.dumps([moment.astimezone(UTC).isoformat(), entry_id], separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _position(cursor: str) -> Position:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        moment_text, entry_id = json.loads(text)
        moment = datetime.fromisoformat(moment_text)
    except (ValueError, TypeError, UnicodeDecodeError):
        raise ValueError(CURSOR_MESSAGE) from None
    if moment.tzinfo is None or type(entry_id) is not int or entry_id < 1:
        raise ValueError(CURSOR_MESSAGE)
    return moment, entry_id


def _moment(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(MOMENT_MESSAGE) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def parse_audit_query(params) -> AuditQuery:
    errors: dict[str, list[str]] = {}
    limit = 50
    try:
        limit = limit_parse(params.get("limit"))
    except ValueError:
        errors["limit"] = [f"Must be an integer from 1 to {MAX_LIMIT}."]
    actor_id = actor_email = None
    actor = (params.get("actor") or "").strip()
    if actor:
        if "@" in actor:
            actor_email = actor
        else:
            try:
                actor_id = uuid.UUID(actor)
            except ValueError:
                errors["actor"] = [ACTOR_MESSAGE]
    action = (params.get("action") or "").strip()
    if action and not _ACTION.fullmatch(action):
        errors["action"] = [ACTION_MESSAGE]
    parsed = {}
    for name, read in (("cursor", _position), ("since", _moment), ("until", _moment)):
        if params.get(name):
            try:
                parsed[name] = read(params[name])
            except ValueError as exc:
                errors[name] = [str(exc)]
    since, until = parsed.get("since"), parsed.get("until")
    if since is not None and until is not None and until <= since:
        errors["until"] = ["Must be later than since."]
    if errors:
        raise ValidationFailed("Invalid input: " + ", ".join(errors) + ".", errors)
    return AuditQuery(limit=limit, before=parsed.get("cursor"), filters=EntryFilter(
        actor_id=actor_id, actor_email=actor_email, action=action or None, since=since,
        until=until))


class EntryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    actor_id = serializers.UUIDField(allow_null=True)
    actor_email = serializers.CharField()
    action = serializers.CharField()
    target = serializers.CharField()
    changes = serializers.JSONField()
    ip = serializers.IPAddressField(allow_null=True)
