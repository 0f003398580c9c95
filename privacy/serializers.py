"""Request and answer shapes of the data-subject request endpoints (OpenDSR 1.0, sections 5,
7 and 8; docs/privacy.md, "Erasure and access (OpenDSR)")."""

from __future__ import annotations

from rest_framework import serializers

from attribution_site.api.fields import (
    StrictCharField,
    StrictListField,
    StrictSerializer,
    StrictUUIDField,
)
from delivery.payloads import iso_utc
from delivery.serializers import WebhookUrlField
from privacy import identities
from privacy.models import RequestType

MAX_CALLBACK_URLS = 10


def _choice(choices, **kwargs) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=choices, error_messages={
        "invalid_choice": f"Must be one of {', '.join(choices)}."}, **kwargs)


class IdentityInput(StrictSerializer):
    identity_type = _choice(identities.IDENTITY_TYPES)
    identity_format = _choice(identities.IDENTITY_FORMATS)
    identity_value = StrictCharField(max_length=255, trim_whitespace=False)

    def validate(self, attrs):
        try:
            attrs["identity_value"] = identities.identity_normalize(
                attrs["identity_type"], attrs["identity_value"])
        except ValueError as exc:
            raise serializers.ValidationError({"identity_value": [str(exc)]}) from None
        return attrs


class SubjectRequestInput(StrictSerializer):
    subject_request_id = StrictUUIDField(message="Must be a UUID v4 string.")
    subject_request_type = _choice([t.value for t in RequestType])
    subject_identities = StrictListField(child=IdentityInput(), min_length=1, max_length=1,
                                         error_messages={
                                             "min_length": "Exactly one identity.",
                                             "max_length": "Exactly one identity per request: "
                                                           "file one request per identity."})
    submitted_time = serializers.DateTimeField()
    property_id = StrictUUIDField(message="Must be the app id (a UUID).")
    status_callback_urls = StrictListField(child=WebhookUrlField(), required=False,
                                           max_length=MAX_CALLBACK_URLS)
    api_version = _choice(("1.0",), required=False)
    regulation = _choice(("gdpr", "ccpa"), required=False)
    extensions = serializers.DictField(required=False, error_messages={
        "not_a_dict": "Must be a JSON object."})

    def validate_subject_request_id(self, value):
        if value.version != 4:
            raise serializers.ValidationError("Must be a UUID v4 string.")
        return value


class ForgetInput(serializers.Serializer):
    app_id = StrictUUIDField()
    device_id = StrictCharField(max_length=64)

    def validate_device_id(self, value):
        try:
            return identities.device_id_normalize(value)
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from None


class ConsoleRequestInput(serializers.Serializer):
    """The console's form: a type and one identity."""

    subject_request_type = _choice([t.value for t in RequestType])
    identity_type = _choice(identities.IDENTITY_TYPES)
    identity_value = StrictCharField(max_length=255)

    def validate(self, attrs):
        try:
            attrs["identity_value"] = identities.identity_normalize(
                attrs["identity_type"], attrs["identity_value"])
        except ValueError as exc:
            raise serializers.ValidationError({"identity_value": [str(exc)]}) from None
        return attrs


def request_answer(subject_request, *, results_url: str | None,
                   results_expires_at) -> dict:
    """The status of a request (OpenDSR 8.3), with what was found (rows per table for an
    erasure, records per kind for an access document), where the document is, and how its run
    went (tries, and the last one's error while it is retried or once it failed)."""
    # Sorted by name: PostgreSQL's jsonb keeps its own key order.
    found = dict(sorted((subject_request.found or {}).items()))
    run = subject_request.run
    return {
        "controller_id": str(subject_request.app.organization_id),
        "subject_request_id": str(subject_request.id),
        "subject_request_type": subject_request.request_type,
        "request_status": subject_request.status,
        "property_id": str(subject_request.app_id),
        "identity_type": subject_request.identity_type,
        "identity_hash": subject_request.identity_hash,
        "source": subject_request.source,
        "submitted_time": _time(subject_request.submitted_time),
        "received_time": _time(subject_request.received_time),
        "expected_completion_time": _time(subject_request.expected_completion_time),
        "completed_time": _time(subject_request.completed_at),
        "api_version": subject_request.api_version,
        "found": found,
        "results_count": sum(found.values()) if subject_request.status == "completed" else None,
        "results_url": results_url,
        "results_expires_at": _time(results_expires_at),
        "attempts_made": run.attempts_made,
        "last_error": run.last_error or None,
    }


def _time(moment) -> str | None:
    return iso_utc(moment)


# --- What the endpoints answer (for the schema; request_answer builds the status) ---------------

class SubjectRequestCreated(serializers.Serializer):
    controller_id = serializers.UUIDField()
    subject_request_id = serializers.UUIDField()
    received_time = serializers.CharField()
    expected_completion_time = serializers.CharField()
    encoded_request = serializers.CharField(help_text="Base64 of the request's exact body.")
    api_version = serializers.CharField()
    callback_secret = serializers.CharField(required=False, help_text=(
        "Only when status_callback_urls were given: the whsec_ secret the callbacks are signed "
        "with. Shown once."))


class SubjectRequestStatus(serializers.Serializer):
    controller_id = serializers.UUIDField()
    subject_request_id = serializers.UUIDField()
    subject_request_type = serializers.CharField()
    request_status = serializers.ChoiceField(
        choices=["pending", "in_progress", "completed", "cancelled", "failed"], help_text=(
            "OpenDSR's four, and `failed`: the run raised on each of its tries; nothing was "
            "erased (last_error says why)."))
    property_id = serializers.UUIDField()
    identity_type = serializers.CharField()
    identity_hash = serializers.CharField(help_text="hex SHA-256 of `identity_type:value`.")
    source = serializers.CharField()
    submitted_time = serializers.CharField()
    received_time = serializers.CharField()
    expected_completion_time = serializers.CharField()
    completed_time = serializers.CharField(allow_null=True)
    api_version = serializers.CharField()
    found = serializers.DictField(child=serializers.IntegerField(), help_text=(
        "Rows erased per table (erasure), or records per kind (access, portability)."))
    results_count = serializers.IntegerField(allow_null=True)
    results_url = serializers.CharField(allow_null=True, help_text=(
        "The access document's signed link while it is kept."))
    results_expires_at = serializers.CharField(allow_null=True)
    attempts_made = serializers.IntegerField(help_text="How many times the run was tried.")
    last_error = serializers.CharField(allow_null=True, help_text=(
        "Why the last try failed, in words, while the run is retried or once it failed; null "
        "otherwise."))


class SubjectRequestList(serializers.Serializer):
    requests = SubjectRequestStatus(many=True)


class SubjectRequestCancelled(serializers.Serializer):
    controller_id = serializers.UUIDField()
    subject_request_id = serializers.UUIDField()
    received_time = serializers.CharField()
    api_version = serializers.CharField()


class ForgetResult(serializers.Serializer):
    subject_request_id = serializers.UUIDField()
    request_status = serializers.CharField()


class AccessDocumentResult(serializers.Serializer):
    document = serializers.JSONField()
    expires_at = serializers.CharField()
