"""Request and response shapes for postbacks, webhooks and their delivery logs (spec: Postback
configuration, Webhook, delivery logs). Log field names are documented in docs/delivery.md.
"""

from __future__ import annotations

import uuid

from rest_framework import serializers

from attribution_site.api.exceptions import ValidationFailed
from attribution_site.api.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictListField,
    StrictSerializer,
)
from delivery import payloads, policy
from delivery.models import HttpMethod, State
from delivery.services import UPDATABLE_POSTBACK_FIELDS, UPDATABLE_WEBHOOK_FIELDS

LOG_LIMIT_DEFAULT = 50
LOG_LIMIT_MAX = 500


class StrictUUIDField(serializers.UUIDField):
    """A UUID sent as a JSON string (DRF's field would also take an integer)."""

    default_error_messages = {"invalid": "Must be a UUID string."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


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
    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", policy.MAX_URL_LENGTH)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        problem = policy.url_problem(value, schemes=("https",))
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


def _method_field(**kwargs) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=HttpMethod.values, error_messages={
        "invalid_choice": "Must be GET or POST."}, **kwargs)


class _RefusesImmutable(StrictSerializer):
    immutable: tuple[str, ...] = ()
    updatable: tuple[str, ...] = ()

    def to_internal_value(self, data):
        if isinstance(data, dict):
            frozen = [name for name in self.immutable if name in data]
            if frozen:
                raise serializers.ValidationError({name: [
                    f"Cannot be changed; updatable fields: {', '.join(self.updatable)}."]
                    for name in frozen})
        return super().to_internal_value(data)


class PostbackCreateInput(StrictSerializer):
    app_id = StrictUUIDField()
    media_source = StrictCharField(max_length=255)
    postback_url = PostbackUrlField()
    http_method = _method_field(required=False, default=HttpMethod.GET)
    events = EventsField(required=False, default=lambda: [payloads.INSTALL])
    active = StrictBooleanField(required=False, default=True)


class PostbackUpdateInput(_RefusesImmutable):
    immutable = ("app_id", "id", "created_at")
    updatable = UPDATABLE_POSTBACK_FIELDS
    media_source = StrictCharField(max_length=255, required=False)
    postback_url = PostbackUrlField(required=False)
    http_method = _method_field(required=False)
    events = EventsField(required=False)
    active = StrictBooleanField(required=False)


class PostbackOutput(serializers.Serializer):
    id = serializers.UUIDField()
    app_id = serializers.UUIDField()
    media_source = serializers.CharField()
    postback_url = serializers.CharField()
    http_method = serializers.CharField()
    events = serializers.ListField(child=serializers.CharField())
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class WebhookCreateInput(StrictSerializer):
    app_id = StrictUUIDField()
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
    """One attempt. The response body is plain text: clients must never render it as HTML."""

    id = serializers.IntegerField()
    delivery_id = serializers.UUIDField()
    event_type = serializers.CharField(source="delivery.event_type")
    is_test = serializers.BooleanField(source="delivery.is_test")
    attempt_number = serializers.IntegerField(source="number")
    http_method = serializers.CharField()
    resolved_url = serializers.CharField(source="url")
    status_code = serializers.IntegerField(allow_null=True)
    response_body = serializers.CharField()
    error_message = serializers.CharField(allow_null=True)
    success = serializers.BooleanField(source="succeeded", allow_null=True)
    duration_ms = serializers.IntegerField(allow_null=True)
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    delivery_state = serializers.CharField(source="delivery.state")
    next_attempt_at = serializers.SerializerMethodField()

    def get_next_attempt_at(self, attempt) -> str | None:
        delivery = attempt.delivery
        if delivery.state != State.PENDING or delivery.next_attempt_at is None:
            return None
        return serializers.DateTimeField().to_representation(delivery.next_attempt_at)

    def to_representation(self, instance):
        data = super().to_representation(instance)
        data["error_message"] = data["error_message"] or None
        return data


class PostbackLogOutput(LogEntryOutput):
    postback_id = serializers.UUIDField(source="delivery.postback_id", allow_null=True)


class WebhookLogOutput(LogEntryOutput):
    webhook_id = serializers.UUIDField(source="delivery.webhook_id", allow_null=True)


def parse_log_query(params, *, filter_name: str) -> tuple[int, uuid.UUID | None]:
    """`limit` (default 50, 1 to 500) and the optional configuration filter, or a 400."""
    errors: dict[str, list[str]] = {}
    raw_limit = params.get("limit")
    limit = LOG_LIMIT_DEFAULT
    if raw_limit not in (None, ""):
        try:
            limit = int(raw_limit)
        except ValueError:
            limit = -1
        if not 1 <= limit <= LOG_LIMIT_MAX:
            errors["limit"] = [f"Must be an integer from 1 to {LOG_LIMIT_MAX}."]
    config_id = None
    if params.get(filter_name):
        try:
            config_id = uuid.UUID(params[filter_name])
        except ValueError:
            errors[filter_name] = ["Must be a UUID."]
    if errors:
        raise ValidationFailed("Invalid input: " + ", ".join(errors) + ".", errors)
    return limit, config_id
