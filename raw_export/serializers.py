"""Request and response shapes of data destinations and their runs (docs/export.md,
"Destinations"). Every field is checked with words naming it; the checks that depend on the
kind (a bucket for s3, a path for a directory) run on the destination as it would be after the
change, so a PUT cannot leave one half-configured. The secret access key is write-only: answers
say only whether one is set.
"""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from rest_framework import serializers

from attribution_site.api.exceptions import ValidationFailed
from attribution_site.api.fields import (
    HttpUrlField,
    StrictCharField,
    StrictListField,
    StrictSerializer,
    refuse_immutable,
)
from outbox import http
from raw_export import columns, rules
from raw_export.models import Destination, DestinationKind, FileFormat
from raw_export.services import S3_FIELDS, UPDATABLE_FIELDS

TOPICS = tuple(columns.TOPICS)
S3_ONLY = (*S3_FIELDS, "secret_access_key")


def _rule(check):
    def validate(value):
        problem = check(value)
        if problem:
            raise serializers.ValidationError(problem)
    return validate


class TopicsField(StrictListField):
    def __init__(self, **kwargs):
        kwargs.setdefault("allow_empty", False)
        super().__init__(child=serializers.ChoiceField(choices=TOPICS, error_messages={
            "invalid_choice": f"Must be one of {', '.join(TOPICS)}."}), **kwargs)

    def to_internal_value(self, data):
        return list(dict.fromkeys(super().to_internal_value(data)))


class AppIdsField(StrictListField):
    """UUIDs of the organization's apps; empty means all of them, including apps added later."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 1000)
        super().__init__(child=StrictCharField(), **kwargs)

    def to_internal_value(self, data):
        values = super().to_internal_value(data)
        try:
            return list(dict.fromkeys(str(uuid.UUID(value)) for value in values))
        except ValueError:
            raise serializers.ValidationError("Must be a list of app UUIDs.") from None


class DestinationFields(StrictSerializer):
    name = StrictCharField(max_length=100)
    kind = serializers.ChoiceField(choices=DestinationKind.values, error_messages={
        "invalid_choice": "Must be s3 or directory."})
    bucket = StrictCharField(required=False, validators=[_rule(rules.bucket_problem)])
    prefix = StrictCharField(required=False, allow_blank=True, max_length=512,
                             validators=[_rule(rules.prefix_problem)])
    endpoint_url = HttpUrlField(required=False, allow_blank=True, help_text=(
        "Any S3-compatible store: https://storage.googleapis.com for GCS, "
        "https://<account>.r2.cloudflarestorage.com for R2, a MinIO's URL. Empty for AWS."))
    region = StrictCharField(required=False, allow_blank=True, max_length=64,
                             validators=[_rule(rules.region_problem)])
    access_key_id = StrictCharField(required=False, max_length=128,
                                    validators=[_rule(rules.credential_problem)])
    secret_access_key = StrictCharField(required=False, max_length=256, write_only=True,
                                        trim_whitespace=False,
                                        validators=[_rule(rules.credential_problem)])
    path = StrictCharField(required=False, max_length=1024,
                           validators=[_rule(rules.path_problem)])
    format = serializers.ChoiceField(choices=FileFormat.values, required=False, error_messages={
        "invalid_choice": "Must be parquet or csv."})
    topics = TopicsField(required=False)
    app_ids = AppIdsField(required=False)

    def validate_name(self, value):
        if not value.strip():
            raise serializers.ValidationError("Must not be blank.")
        return value.strip()

    def validate_endpoint_url(self, value):
        parts = urlsplit(value)
        if parts.username or parts.password or parts.query or parts.fragment:
            # Credentials in a URL end up in logs and answers; they go in their own fields.
            raise serializers.ValidationError(
                "Must be a plain URL, without credentials, query or fragment.")
        if value:
            refusal = http.destination_refusal(value)
            if refusal:
                raise serializers.ValidationError(refusal)
        return value.rstrip("/")


class DestinationCreateInput(DestinationFields):
    pass


class DestinationUpdateInput(DestinationFields):
    immutable = ("id", "created_at", "organization_id")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.required = False

    def to_internal_value(self, data):
        refuse_immutable(data, immutable=self.immutable, message=(
            f"Cannot be changed; updatable fields: {', '.join(UPDATABLE_FIELDS)}."))
        return super().to_internal_value(data)


def complete(fields: dict[str, Any], *, current: Destination | None,
             organization_app_ids: set[str]) -> dict[str, Any]:
    """The fields to store: `fields` checked together, over the destination as it is (on an
    update). Raises ValidationFailed naming each field at fault."""
    merged = {"kind": None, "bucket": "", "path": "", "access_key_id": "", "format": None,
              "topics": None}
    if current is not None:
        merged.update(kind=current.kind, bucket=current.bucket, path=current.path,
                      access_key_id=current.access_key_id,
                      has_secret=bool(current.secret_access_key_encrypted))
    merged.update(fields)
    errors: dict[str, list[str]] = {}
    kind = merged["kind"]
    switched = current is not None and current.kind != kind
    if kind == DestinationKind.S3:
        for name in ("bucket", "access_key_id"):
            if not merged.get(name):
                errors[name] = ["Required for an s3 destination."]
        if "path" in fields:
            errors["path"] = ["Only for a directory destination."]
        if not fields.get("secret_access_key") and (switched or not merged.get("has_secret")):
            errors["secret_access_key"] = ["Required for an s3 destination."]
    else:
        for name in S3_ONLY:
            if name in fields:
                errors[name] = ["Only for an s3 destination."]
        if not merged.get("path"):
            errors["path"] = ["Required for a directory destination."]
        elif not settings.RAW_EXPORT_DIRECTORY_ROOT:
            errors["kind"] = ["Directory destinations are off on this server: its operator "
                              "sets RAW_EXPORT_DIRECTORY_ROOT to turn them on."]
    unknown = [app_id for app_id in fields.get("app_ids", ()) if app_id not in
               organization_app_ids]
    if unknown:
        errors["app_ids"] = [f"Not an app of your organization: {', '.join(unknown)}."]
    if errors:
        raise ValidationFailed(f"Invalid input: {', '.join(sorted(errors))}.", errors)
    out = dict(fields)
    if current is None:
        out.setdefault("format", FileFormat.PARQUET)
        out.setdefault("topics", list(TOPICS))
        out.setdefault("app_ids", [])
        out.setdefault("prefix", "")
    if "prefix" in out:
        out["prefix"] = out["prefix"].strip("/")
    return out


class RunOutput(serializers.Serializer):
    id = serializers.UUIDField()
    trigger = serializers.CharField()
    state = serializers.CharField(help_text="pending, sending, succeeded or failed")
    attempts = serializers.IntegerField(source="attempts_made")
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    rows = serializers.IntegerField()
    bytes = serializers.IntegerField()
    topics = serializers.DictField(child=serializers.DictField(child=serializers.IntegerField()),
                                   help_text="Rows and bytes written per topic.")
    hours_completed = serializers.ListField(child=serializers.JSONField())
    error = serializers.CharField(source="error_message", help_text=(
        "In plain words; the last try's when the run is retried. Plain text: never render it "
        "as HTML."))
    created_at = serializers.DateTimeField()
    completed_at = serializers.DateTimeField(allow_null=True)


class DestinationOutput(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    kind = serializers.CharField()
    bucket = serializers.CharField()
    prefix = serializers.CharField()
    endpoint_url = serializers.CharField()
    region = serializers.CharField()
    access_key_id_hint = serializers.SerializerMethodField(help_text=(
        "The access key ID's last four characters; the key itself is not answered."))
    secret_access_key_set = serializers.SerializerMethodField()
    path = serializers.CharField()
    format = serializers.CharField()
    topics = serializers.ListField(child=serializers.CharField())
    app_ids = serializers.ListField(child=serializers.CharField(), help_text=(
        "Empty: every app of the organization."))
    written_up_to = serializers.DateTimeField(allow_null=True, help_text=(
        "Every row committed before this moment is in the destination's files."))
    last_error = serializers.CharField(help_text="Plain text; empty since the last success.")
    last_error_at = serializers.DateTimeField(allow_null=True)
    last_run = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()

    def get_access_key_id_hint(self, destination) -> str:
        key = destination.access_key_id
        return f"…{key[-4:]}" if len(key) > 8 else ("…" if key else "")

    def get_secret_access_key_set(self, destination) -> bool:
        return bool(destination.secret_access_key_encrypted)

    def get_last_run(self, destination) -> dict | None:
        run = self.context.get("last_runs", {}).get(destination.id)
        return RunOutput(run).data if run is not None else None
