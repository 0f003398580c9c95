"""Request and response shapes for apps and API keys."""

from __future__ import annotations

import re

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps_registry import app_fields, keys, linked_apps
from apps_registry.models import IosFingerprinting, Platform
from apps_registry.services import IDENTIFIER_FIELD, UPDATABLE_APP_FIELDS
from attribution_site.api.fields import (
    HttpUrlField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictListField,
    StrictSerializer,
    refuse_immutable,
)

BUNDLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.\-]*$")
PACKAGE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$")
DOMAIN = re.compile(r"^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)+"
                    r"[A-Za-z]{2,63}$")
APPLE_APP_ID = re.compile(r"^(id)?[0-9]{1,20}$")
PERMISSIONS = ("read", "write", "admin")
IMMUTABLE_APP_FIELDS = ("platform", "bundle_id", "apple_app_id", "package_name", "domain")


def _pattern_field(pattern: re.Pattern, message: str) -> StrictCharField:
    return StrictCharField(required=False, allow_null=True, max_length=255, validators=[
        _matches(pattern, message)])


def _matches(pattern: re.Pattern, message: str):
    def check(value):
        if value is not None and not pattern.match(value):
            raise serializers.ValidationError(message)
    return check


class _LinkFields(serializers.Serializer):
    """What the association files and the links' "Open" button need of an app
    (docs/links.md, "Association files")."""

    apple_team_id = StrictCharField(required=False, allow_null=True, max_length=32)
    android_sha256_fingerprints = StrictListField(
        child=StrictCharField(max_length=128), required=False,
        max_length=app_fields.MAX_FINGERPRINTS, error_messages={
            "max_length": f"At most {app_fields.MAX_FINGERPRINTS} fingerprints."})
    url_scheme = StrictCharField(required=False, allow_null=True, max_length=64)

    def validate_apple_team_id(self, value):
        if value is None:
            return None
        value = value.strip().upper()
        problem = app_fields.team_id_problem(value)
        if problem:
            raise serializers.ValidationError(problem)
        return value

    def validate_android_sha256_fingerprints(self, value):
        normalized = []
        for index, item in enumerate(value):
            fingerprint = app_fields.fingerprint(item)
            if fingerprint is None:
                raise serializers.ValidationError(
                    f"Item {index + 1}: must be a SHA-256 certificate fingerprint, 32 hex "
                    "pairs separated by colons (AA:BB:...:FF).")
            normalized.append(fingerprint)
        return list(dict.fromkeys(normalized))

    def validate_url_scheme(self, value):
        if value is None:
            return None
        problem = app_fields.url_scheme_problem(value.strip())
        if problem:
            raise serializers.ValidationError(problem)
        return app_fields.normalized_url_scheme(value.strip())


class _RetentionFields(serializers.Serializer):
    """How long the app's IP addresses and fingerprints, then its raw clicks and events, are
    kept (docs/privacy.md, "Retention"). On an update, the rule between the two is checked
    against the app's stored value of the one not sent (the serializer's `instance`)."""

    ip_retention_days = StrictIntegerField(
        required=False, min_value=app_fields.IP_RETENTION_MINIMUM_DAYS,
        max_value=app_fields.RETENTION_MAXIMUM_DAYS, error_messages={
            "min_value": f"Must be at least {app_fields.IP_RETENTION_MINIMUM_DAYS} day.",
            "max_value": f"Must be at most {app_fields.RETENTION_MAXIMUM_DAYS} days."})
    raw_retention_days = StrictIntegerField(
        required=False, min_value=app_fields.RAW_RETENTION_MINIMUM_DAYS,
        max_value=app_fields.RETENTION_MAXIMUM_DAYS, error_messages={
            "min_value": f"Must be at least {app_fields.RAW_RETENTION_MINIMUM_DAYS} days (the "
                         "rollups' rebuilds read that far back).",
            "max_value": f"Must be at most {app_fields.RETENTION_MAXIMUM_DAYS} days."})

    def validate(self, attrs):
        attrs = super().validate(attrs)
        stored = self.instance
        ip_days = attrs.get("ip_retention_days", getattr(
            stored, "ip_retention_days", app_fields.IP_RETENTION_DEFAULT_DAYS))
        raw_days = attrs.get("raw_retention_days", getattr(
            stored, "raw_retention_days", app_fields.RAW_RETENTION_DEFAULT_DAYS))
        problem = app_fields.retention_limits_problem(ip_days=ip_days, raw_days=raw_days)
        if problem is not None:
            field, message = problem
            if "raw_retention_days" not in attrs:  # only the IP limit was sent: it is at fault
                field = "ip_retention_days"
                message = (f"Must be at most raw_retention_days ({raw_days}): a raw row cannot "
                           "outlive the limit on its IP address.")
            raise serializers.ValidationError({field: [message]})
        return attrs


def _ios_fingerprinting_field() -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=IosFingerprinting.values, required=False,
                                   error_messages={"invalid_choice": "Must be one of "
                                                   f"{', '.join(IosFingerprinting.values)}."})


class AppCreateInput(_RetentionFields, _LinkFields, StrictSerializer):
    name = StrictCharField(max_length=200)
    platform = serializers.ChoiceField(choices=Platform.values, error_messages={
        "invalid_choice": "Must be one of ios, android, web."})
    bundle_id = _pattern_field(BUNDLE_ID, "Must look like com.example.app.")
    apple_app_id = _pattern_field(APPLE_APP_ID, "Must be the numeric App Store id.")
    package_name = _pattern_field(PACKAGE_NAME, "Must look like com.example.app.")
    domain = _pattern_field(DOMAIN, "Must be a host name such as app.example.com.")
    app_store_url = HttpUrlField(required=False, allow_null=True)
    play_store_url = HttpUrlField(required=False, allow_null=True)
    ios_fingerprinting = _ios_fingerprinting_field()

    def validate(self, attrs):
        attrs = super().validate(attrs)
        field = IDENTIFIER_FIELD[Platform(attrs["platform"])]
        if not attrs.get(field):
            raise serializers.ValidationError(
                {field: [f"This field is required when platform is {attrs['platform']}."]})
        if attrs.get("apple_app_id", "") and attrs["apple_app_id"].startswith("id"):
            attrs["apple_app_id"] = attrs["apple_app_id"][2:]
        if attrs.get("domain"):
            attrs["domain"] = attrs["domain"].lower()
        return attrs


class AppUpdateInput(_RetentionFields, _LinkFields, StrictSerializer):
    name = StrictCharField(max_length=200, required=False)
    app_store_url = HttpUrlField(required=False, allow_null=True)
    play_store_url = HttpUrlField(required=False, allow_null=True)
    ios_fingerprinting = _ios_fingerprinting_field()
    linked_apps = StrictListField(child=serializers.UUIDField(error_messages={
        "invalid": "Must be an app id (a UUID)."}), required=False, help_text=(
        "A web app's iOS and Android apps of the same organization (docs/web.md, "
        "\"Web to app\"); the list replaces the stored one."))

    def validate_linked_apps(self, value):
        linked = linked_apps.current()
        if linked is None:
            raise serializers.ValidationError("Linked apps are not available on this server.")
        problem = linked.linked_apps_problem(app=self.instance, app_ids=value)
        if problem:
            raise serializers.ValidationError(problem)
        return value

    def to_internal_value(self, data):
        refuse_immutable(data, immutable=IMMUTABLE_APP_FIELDS, message=(
            f"Cannot be changed after creation; only {', '.join(UPDATABLE_APP_FIELDS)} "
            "can be updated."))
        return super().to_internal_value(data)


class AppOutput(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    platform = serializers.CharField()
    bundle_id = serializers.CharField(allow_null=True)
    apple_app_id = serializers.CharField(allow_null=True)
    package_name = serializers.CharField(allow_null=True)
    domain = serializers.CharField(allow_null=True)
    app_store_url = serializers.CharField(allow_null=True)
    play_store_url = serializers.CharField(allow_null=True)
    apple_team_id = serializers.CharField(allow_null=True)
    android_sha256_fingerprints = serializers.ListField(child=serializers.CharField())
    url_scheme = serializers.CharField(allow_null=True)
    ios_fingerprinting = serializers.CharField()
    ip_retention_days = serializers.IntegerField()
    raw_retention_days = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class AppDetailOutput(AppOutput):
    api_key_count = serializers.IntegerField()
    linked_apps = serializers.SerializerMethodField(help_text=(
        "A web app's linked iOS and Android apps (docs/web.md, \"Web to app\"); [] for "
        "the others."))

    @extend_schema_field(serializers.ListField(child=serializers.UUIDField()))
    def get_linked_apps(self, app) -> list[str]:
        linked = linked_apps.current()
        if linked is None or app.platform != "web":
            return []
        return [str(app_id) for app_id in linked.linked_apps_of(app_id=app.id)]


class ApiKeyCreateInput(StrictSerializer):
    name = StrictCharField(max_length=200, required=False, allow_blank=True, default="")
    permissions = StrictListField(
        child=serializers.ChoiceField(choices=PERMISSIONS, error_messages={
            "invalid_choice": "Must be one of read, write, admin."}),
        required=False, allow_empty=False)
    rate_limit = StrictIntegerField(required=False, min_value=1, max_value=100_000)
    expires_at = serializers.DateTimeField(required=False, allow_null=True)
    # The key signs its requests (docs/fraud.md, "incorrect_signature"): its secret is
    # answered once, as `signing_secret`.
    signing = StrictBooleanField(required=False, default=False)
    # A web key (docs/web.md, "Web keys"): public, for the browser script, from these origins.
    kind = serializers.ChoiceField(choices=keys.KINDS, required=False, default=keys.KIND_SERVER,
                                   error_messages={"invalid_choice": "Must be server or web."})
    allowed_origins = StrictListField(child=serializers.JSONField(), required=False)

    def validate_expires_at(self, value):
        if value is not None and value <= timezone.now():
            raise serializers.ValidationError("Must be in the future.")
        return value

    def validate_allowed_origins(self, value):
        if not 1 <= len(value) <= keys.MAX_ORIGINS:
            raise serializers.ValidationError(
                f"Give 1 to {keys.MAX_ORIGINS} origins, such as https://shop.example.")
        origins = []
        for index, item in enumerate(value):
            origin, problem = keys.origin_parse(item)
            if problem:
                raise serializers.ValidationError(f"Item {index + 1}: {problem}")
            origins.append(origin)
        return list(dict.fromkeys(origins))

    def validate(self, attrs):
        if attrs.get("kind") == keys.KIND_WEB:
            if "allowed_origins" not in attrs:
                raise serializers.ValidationError({"allowed_origins": [
                    "A web key needs the origins of the pages it is used on."]})
            if attrs.get("signing"):
                raise serializers.ValidationError({"signing": [
                    "A web key is public: it cannot sign requests."]})
            if attrs.get("permissions") not in (None, ["write"]):
                raise serializers.ValidationError({"permissions": [
                    "A web key's permissions are fixed: it can only send web visits and "
                    "events, never read."]})
        elif "allowed_origins" in attrs:
            raise serializers.ValidationError({"allowed_origins": [
                "Only a web key has origins (kind: web)."]})
        return attrs


class ApiKeyOutput(serializers.Serializer):
    id = serializers.CharField()
    key_prefix = serializers.CharField()
    name = serializers.CharField()
    permissions = serializers.ListField(child=serializers.CharField())
    rate_limit = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True)
    kind = serializers.CharField()
    allowed_origins = serializers.ListField(child=serializers.CharField())


class ApiKeyCreatedOutput(ApiKeyOutput):
    full_key = serializers.CharField()
    signing_secret = serializers.CharField(required=False, help_text=(
        "Only for a key created with signing: the HMAC secret of its requests' X-Signature, "
        "shown this once (docs/fraud.md)."))
