"""Request and response shapes for postbacks, webhooks and their delivery logs (spec: Postback
configuration, Webhook, delivery logs), and the log endpoints' query: limit, filters and the
paging cursor. Log field names and query bounds are documented in docs/delivery.md.
"""

from __future__ import annotations

import base64
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from attribution_site.api.exceptions import ValidationFailed
from attribution_site.api.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictListField,
    StrictSerializer,
    StrictUUIDField,
    refuse_immutable,
)
from attribution_site.api.pagination import DEFAULT_LIMIT, MAX_LIMIT, limit_parse
from delivery import payloads, policy
from delivery.models import ConsentPolicy, HttpMethod, State
from delivery.services import (
    UPDATABLE_POSTBACK_FIELDS,
    UPDATABLE_WEBHOOK_FIELDS,
    webhook_url_problem,
)

UUID_MESSAGE = "Must be a UUID string."


class PostbackUrlField(StrictCharField):
    """An http(s) URL template; macros only in the path or query, and only known ones."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", policy.MAX_URL_LENGTH)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        problem = policy.url_problem(value, schemes=("http", "https"), macros=payloads.MACROS)
        if problem:
            raise serializers.ValidationError(problem)
        return value


class WebhookUrlField(StrictCharField):
    """An https URL; plain http only to loopback or private receivers, where allowed."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", policy.MAX_URL_LENGTH)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        problem = webhook_url_problem(value)
        if problem:
            raise serializers.ValidationError(problem)
        return value


class EventsField(StrictListField):
    """A non-empty subset of install, event, re-engagement (duplicates dropped)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_empty", False)
        super().__init__(child=serializers.ChoiceField(
            choices=payloads.EVENT_TYPES, error_messages={
                "invalid_choice": "Must be one of install, event, re-engagement."}), **kwargs)

    def to_internal_value(self, data):
        return list(dict.fromkeys(super().to_internal_value(data)))


def _consent_policy_field(**kwargs) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=ConsentPolicy.values, error_messages={
        "invalid_choice": "Must be strip or suppress."}, help_text=(
        "For a user under the GDPR who denied ad_user_data: strip (default) sends the "
        "postback with device_id and install_id empty; suppress sends nothing."), **kwargs)


def _method_field(**kwargs) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=HttpMethod.values, error_messages={
        "invalid_choice": "Must be GET or POST."}, **kwargs)


class _RefusesImmutable(StrictSerializer):
    # No docstring: the schema would show it instead of StrictSerializer's.
    immutable: tuple[str, ...] = ()
    updatable: tuple[str, ...] = ()

    def to_internal_value(self, data):
        refuse_immutable(data, immutable=self.immutable, message=(
            f"Cannot be changed; updatable fields: {', '.join(self.updatable)}."))
        return super().to_internal_value(data)


class PostbackCreateInput(StrictSerializer):
    app_id = StrictUUIDField(message=UUID_MESSAGE)
    media_source = StrictCharField(max_length=255)
    postback_url = PostbackUrlField()
    http_method = _method_field(required=False, default=HttpMethod.GET)
    events = EventsField(required=False, default=lambda: [payloads.INSTALL])
    active = StrictBooleanField(required=False, default=True)
    consent_policy = _consent_policy_field(required=False, default=ConsentPolicy.STRIP)
    send_rejected = StrictBooleanField(required=False, default=False, help_text=(
        "Also post back installs a fraud rule refused this network's claim to, with "
        "is_rejected=1 and the reason (docs/fraud.md)."))


class PostbackUpdateInput(_RefusesImmutable):
    immutable = ("app_id", "id", "created_at")
    updatable = UPDATABLE_POSTBACK_FIELDS
    media_source = StrictCharField(max_length=255, required=False)
    postback_url = PostbackUrlField(required=False)
    http_method = _method_field(required=False)
    events = EventsField(required=False)
    active = StrictBooleanField(required=False)
    consent_policy = _consent_policy_field(required=False)
    send_rejected = StrictBooleanField(required=False)


class PostbackOutput(serializers.Serializer):
    id = serializers.UUIDField()
    app_id = serializers.UUIDField()
    media_source = serializers.CharField()
    postback_url = serializers.CharField()
    http_method = serializers.CharField()
    events = serializers.ListField(child=serializers.CharField())
    active = serializers.BooleanField()
    consent_policy = serializers.CharField()
    send_rejected = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class WebhookCreateInput(StrictSerializer):
    app_id = StrictUUIDField(message=UUID_MESSAGE)
    url = WebhookUrlField()
    events = EventsField()


class WebhookUpdateInput(_RefusesImmutable):
    immutable = ("app_id", "id", "created_at", "secret")
    updatable = UPDATABLE_WEBHOOK_FIELDS
    url = WebhookUrlField(required=False)
    events = EventsField(required=False)
    active = StrictBooleanField(required=False)


class WebhookOutput(serializers.Serializer):
    id = serializers.UUIDField()
    app_id = serializers.UUIDField()
    url = serializers.CharField()
    events = serializers.ListField(child=serializers.CharField())
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class LogEntryOutput(serializers.Serializer):
    """One attempt, or a delivery not yet attempted, whose attempt fields are null
    (docs/delivery.md, "Deliveries not yet attempted"). The response body is plain text:
    clients must never render it as HTML."""

    id = serializers.IntegerField(allow_null=True)
    delivery_id = serializers.UUIDField()
    event_type = serializers.CharField(source="delivery.event_type")
    install_id = serializers.SerializerMethodField(help_text=(
        "The install the message is about (an event's or a re-engagement's install too); null "
        "for a test send, an event without an install, and an event or re-engagement logged "
        "before this field existed."))
    event_id = serializers.SerializerMethodField(help_text=(
        "The in-app event an `event` message carries; null for other event types."))
    is_test = serializers.BooleanField(source="delivery.is_test")
    attempt_number = serializers.IntegerField(source="number", allow_null=True)
    http_method = serializers.CharField(allow_null=True)
    resolved_url = serializers.CharField(source="url", allow_null=True)
    status_code = serializers.IntegerField(allow_null=True)
    response_body = serializers.CharField(allow_null=True)
    error_message = serializers.CharField(allow_null=True)
    success = serializers.BooleanField(source="succeeded", allow_null=True)
    duration_ms = serializers.IntegerField(allow_null=True)
    queued_at = serializers.DateTimeField(source="delivery.created_at")
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    delivery_state = serializers.CharField(source="delivery.state")
    consent_note = serializers.CharField(source="delivery.consent_note", allow_null=True,
                                         help_text=(
        "Why the user's consent changed this delivery (stripped of identifiers, or skipped: "
        "then delivery_state is skipped and there is no attempt); null when it did not."))
    next_attempt_at = serializers.SerializerMethodField()

    @extend_schema_field({"type": "string", "format": "uuid", "nullable": True})
    def get_install_id(self, attempt) -> str | None:
        return self._subject(attempt)[0]

    def get_event_id(self, attempt) -> int | None:
        return self._subject(attempt)[1]

    @staticmethod
    def _subject(attempt) -> tuple[str | None, int | None]:
        delivery = attempt.delivery
        return payloads.log_subject(event_type=delivery.event_type, source_id=delivery.source_id,
                                    install_id=delivery.install_id, is_test=delivery.is_test)

    def get_next_attempt_at(self, attempt) -> str | None:
        delivery = attempt.delivery
        if delivery.state != State.PENDING or delivery.next_attempt_at is None:
            return None
        return serializers.DateTimeField().to_representation(delivery.next_attempt_at)

    def to_representation(self, instance):
        data = super().to_representation(instance)
        data["error_message"] = data["error_message"] or None
        data["consent_note"] = data["consent_note"] or None
        return data


class PostbackLogOutput(LogEntryOutput):
    postback_id = serializers.UUIDField(source="delivery.postback_id", allow_null=True)


class WebhookLogOutput(LogEntryOutput):
    webhook_id = serializers.UUIDField(source="delivery.webhook_id", allow_null=True)


# --- Log queries: limit, filters and the cursor (docs/delivery.md, "Reading the logs") -----

CURSOR_MESSAGE = "Invalid cursor: pass the next_cursor of a previous page unchanged."
MOMENT_MESSAGE = ("Must be an ISO 8601 date-time, e.g. 2024-05-01T12:00:00Z (no offset means "
                  "UTC; send + as %2B).")


@dataclass(frozen=True)
class LogQuery:
    limit: int
    config_id: uuid.UUID | None
    states: tuple[str, ...]
    since: datetime | None
    until: datetime | None
    before: tuple[datetime, int | uuid.UUID] | None  # the decoded cursor


def log_cursor(position: tuple[datetime, int | uuid.UUID] | None) -> str | None:
    """Opaque to clients: the position of the last entry of a page (its moment and its
    attempt id, or a not yet attempted delivery's id), as URL-safe base64."""
    if position is None:
        return None
    moment, entry_id = position
    entry = entry_id if isinstance(entry_id, int) else str(entry_id)
    text = json.dumps([moment.astimezone(UTC).isoformat(), entry], separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _position(cursor: str) -> tuple[datetime, int | uuid.UUID]:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        moment_text, entry = json.loads(text)
        moment = datetime.fromisoformat(moment_text)
        entry_id = uuid.UUID(entry) if isinstance(entry, str) else entry
    except (ValueError, TypeError, UnicodeDecodeError):
        raise ValueError(CURSOR_MESSAGE) from None
    known = isinstance(entry_id, uuid.UUID) or (type(entry_id) is int and entry_id >= 1)
    if moment.tzinfo is None or not known:
        raise ValueError(CURSOR_MESSAGE)
    return moment, entry_id


def _moment(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(MOMENT_MESSAGE) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _states(values: list[str]) -> tuple[str, ...]:
    states = [state.strip() for value in values for state in value.split(",") if state.strip()]
    unknown = [state for state in states if state not in State.values]
    if unknown or not states:
        raise ValueError("Must be one or more of " + ", ".join(State.values)
                         + " (comma-separated).")
    return tuple(dict.fromkeys(states))


def parse_log_query(params, *, filter_name: str) -> LogQuery:
    """`limit` (default 50, 1 to 500), `cursor`, `since`, `until`, `state` and the
    configuration filter, or a 400 naming every bad parameter."""
    errors: dict[str, list[str]] = {}
    limit = DEFAULT_LIMIT
    try:
        limit = limit_parse(params.get("limit"))
    except ValueError:  # the log endpoints have always said it in one message
        errors["limit"] = [f"Must be an integer from 1 to {MAX_LIMIT}."]
    config_id = None
    if params.get(filter_name):
        try:
            config_id = uuid.UUID(params[filter_name])
        except ValueError:
            errors[filter_name] = ["Must be a UUID."]
    parsed: dict[str, Any] = {}
    readers = {"cursor": _position, "since": _moment, "until": _moment}
    for name, read in readers.items():
        if params.get(name):
            try:
                parsed[name] = read(params[name])
            except ValueError as exc:
                errors[name] = [str(exc)]
    states: tuple[str, ...] = ()
    if "state" in params:
        try:
            states = _states(params.getlist("state"))
        except ValueError as exc:
            errors["state"] = [str(exc)]
    since, until = parsed.get("since"), parsed.get("until")
    if since is not None and until is not None and until <= since:
        errors["until"] = ["Must be later than since."]
    if errors:
        raise ValidationFailed("Invalid input: " + ", ".join(errors) + ".", errors)
    return LogQuery(limit=limit, config_id=config_id, states=states, since=since, until=until,
                    before=parsed.get("cursor"))


PLATFORM_KINDS = ("google_ads", "meta")


def parse_platform(params, *, config_id: uuid.UUID | None) -> str | None:
    """The postback log's `platform` filter: `google_ads` or `meta` (the conversions sent to
    that platform), or None when absent; a 400 naming the field otherwise."""
    platform = params.get("platform")
    if platform is None:
        return None
    if platform not in PLATFORM_KINDS:
        raise ValidationFailed("Invalid input: platform.",
                               {"platform": ["Must be google_ads or meta."]})
    if config_id is not None:
        raise ValidationFailed("Invalid input: platform.", {
            "platform": ["Cannot be combined with postback_id: a platform has no postback "
                         "configuration."]})
    return platform
