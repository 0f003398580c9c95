"""Request and response shapes of the tracking endpoints.

SDK responses use the spec's camelCase attribution result; dashboard (JWT) responses use the
management API's snake_case.
"""

from __future__ import annotations

import uuid

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from attribution_site.api.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
    StrictUUIDField,
)
from consent.serializers import ConsentDataField, ConsentOutput, consent_input

PLATFORMS = ("ios", "android", "web")
# App Tracking Transparency, as iOS reports it (ATTrackingManager.AuthorizationStatus).
ATT_STATUSES = ("authorized", "denied", "restricted", "not_determined")


# Google Play's Install Referrer API times, under its own names (docs/fraud.md, "What the SDK
# sends"): unix seconds; 0 (what the API gives when it has no value) or null is absent.
PLAY_TIMESTAMPS = ("referrer_click_timestamp_seconds", "install_begin_timestamp_seconds",
                   "referrer_click_timestamp_server_seconds",
                   "install_begin_timestamp_server_seconds")
MAX_UNIX_SECONDS = 4_102_444_800  # 2100-01-01


def _play_timestamp() -> StrictIntegerField:
    return StrictIntegerField(required=False, allow_null=True, min_value=0,
                              max_value=MAX_UNIX_SECONDS, help_text=(
                                  "Unix seconds, as Play's Install Referrer API gives it."))


def _optional(max_length: int) -> StrictCharField:
    return StrictCharField(required=False, allow_null=True, allow_blank=True,
                           max_length=max_length)


@extend_schema_field({"type": "array", "items": {"type": "object"}})
class RawJsonField(serializers.Field):
    """Any parsed JSON value, passed through as it is. DRF's JSONField would serialise a
    whole batch of events again just to prove it is JSON, which the parser already did."""

    def to_internal_value(self, data):
        return data

    def to_representation(self, value):
        return value


# Unix seconds as Meta's content provider gives them; more than this is milliseconds (a client
# bug the 400 names rather than a time far in the future).
MAX_UNIX_SECONDS = 10**11


class UnixSecondsField(serializers.IntegerField):
    default_error_messages = {"not_seconds": "Must be a Unix time in seconds (an integer)."}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int) or not 0 < data < MAX_UNIX_SECONDS:
            self.fail("not_seconds")
        return data


class ClickThroughField(StrictBooleanField):
    """Meta's content provider gives `is_ct` as 1 or 0; true and false read the same."""

    default_error_messages = {"not_a_boolean": "Must be true, false, 1 or 0."}

    def to_internal_value(self, data):
        if data in (0, 1) and not isinstance(data, bool):
            return bool(data)
        return super().to_internal_value(data)


class MetaInstallReferrerInput(StrictSerializer):
    """Meta's install referrer, as the SDK reads it from the Facebook or Instagram app
    (docs/networks.md, "Meta's own install referrer")."""

    install_referrer = StrictCharField(max_length=4096, help_text=(
        "The content provider's `install_referrer`: JSON holding Meta's encrypted campaign "
        "data (utm_content.source.data and nonce)."))
    is_ct = ClickThroughField(help_text="1 or true: a click-through; 0 or false: view-through.")
    actual_timestamp = UnixSecondsField(help_text="When the click or view happened (Unix s).")

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError(
                "Must be an object: install_referrer, is_ct, actual_timestamp.")
        return super().to_internal_value(data)


class InstallInput(serializers.Serializer):
    app_id = StrictUUIDField()
    device_id = _optional(64)  # the column's width: longer is a 400, not a database error
    platform = serializers.ChoiceField(choices=PLATFORMS, error_messages={
        "invalid_choice": "Must be one of ios, android, web."})
    install_referrer = _optional(4096)
    sdk_version = StrictCharField(max_length=64)
    screen_resolution = _optional(32)
    timezone = _optional(64)
    language = _optional(64)
    os_version = _optional(64)
    device_model = _optional(128)
    att_status = serializers.ChoiceField(
        choices=ATT_STATUSES, required=False, allow_null=True, allow_blank=True,
        error_messages={"invalid_choice": f"Must be one of {', '.join(ATT_STATUSES)}."})
    attribution_token = _optional(4096)  # Apple's AdServices token
    consent_data = ConsentDataField(required=False, allow_null=True)
    customer_user_id = _optional(255)  # the app's own user id (AppsFlyer's CUID)
    meta_install_referrer = MetaInstallReferrerInput(required=False, allow_null=True)
    referrer_click_timestamp_seconds = _play_timestamp()
    install_begin_timestamp_seconds = _play_timestamp()
    referrer_click_timestamp_server_seconds = _play_timestamp()
    install_begin_timestamp_server_seconds = _play_timestamp()
    install_version = _optional(64)  # Play's version of the app when the install began


_INSTALL_OPTIONAL = {"device_id": 64, "customer_user_id": 255, "install_referrer": 4096,
                     "screen_resolution": 32, "timezone": 64, "language": 64, "os_version": 64,
                     "device_model": 128,
                     "attribution_token": 4096, "install_version": 64}


def _validated(data: dict, fast_check, serializer_class) -> dict:
    """The serializer's validated data: a well-formed body is checked by `fast_check` (DRF's
    field machinery costs about 0.5 ms per install, a third of a millisecond per event batch);
    anything it is unsure of goes through the serializer, which owns every error message."""
    fast = fast_check(data)
    if fast is not None:
        return fast
    payload = serializer_class(data=data)
    payload.is_valid(raise_exception=True)
    return payload.validated_data


def install_platform_problem(*, platform: str, app_platform: str) -> str | None:
    """Why an install reported on `platform` cannot be an install of an `app_platform` app.

    An app is registered for one platform (a web app's only one is web), and its SDK runs
    there only: an Android app's install that says ios is a key pasted into the wrong build,
    and taking it would put iOS's attribution rules (ATT, no Play referrer) on an Android
    install and split the app's reports by a platform it does not have.
    """
    if platform == app_platform:
        return None
    return f"Must be {app_platform}: this app's platform is {app_platform}."


def install_input(data: dict) -> dict:
    """The validated install, with `consent` (a consent.Consent, or None when not sent)."""
    validated = dict(_validated(data, _install_input_fast, InstallInput))
    raw_consent = data.get("consent_data")
    validated["consent"] = consent_input(raw_consent) if raw_consent is not None else None
    return validated


def _install_input_fast(data: dict) -> dict | None:
    """The serializer's validated data for plainly valid input, else None (never an error).

    Stricter than the serializer on purpose: only ASCII text (DRF also rejects NUL and lone
    surrogates), only canonical values; a test checks it agrees with the serializer."""
    try:
        app_id = uuid.UUID(hex=data["app_id"])
        platform, sdk_version = data["platform"], data["sdk_version"]
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    if platform not in PLATFORMS or type(platform) is not str:
        return None
    sdk_version = _plain_text(sdk_version, 64)
    if not sdk_version:
        return None
    if data.get("meta_install_referrer") is not None:
        return None  # rare, and nested: the serializer checks it
    validated = {"app_id": app_id, "platform": platform, "sdk_version": sdk_version}
    if "att_status" in data:
        if data["att_status"] not in (*ATT_STATUSES, None, "") or (
                data["att_status"] is not None and type(data["att_status"]) is not str):
            return None
        validated["att_status"] = data["att_status"]
    for name in PLAY_TIMESTAMPS:
        if name in data:
            value = data[name]
            if value is not None and (type(value) is not int
                                      or not 0 <= value <= MAX_UNIX_SECONDS):
                return None
            validated[name] = value
    return _with_optional_text(validated, data, _INSTALL_OPTIONAL)


def _with_optional_text(validated: dict, data: dict, limits: dict[str, int]) -> dict | None:
    """`validated` plus the optional text fields present in `data` (None, blank or plain text
    within the limit), or None when one of them needs the serializer."""
    for name, limit in limits.items():
        if name in data:
            value = data[name]
            if value is not None:
                value = _plain_text(value, limit, blank=True)
                if value is None:
                    return None
            validated[name] = value
    return validated


def _plain_text(value, limit: int, *, blank: bool = False) -> str | None:
    if type(value) is not str or not value.isascii() or "\x00" in value:
        return None
    value = value.strip()
    if len(value) > limit or (not value and not blank):
        return None
    return value


class EventBatchInput(serializers.Serializer):
    app_id = StrictUUIDField()
    device_id = _optional(64)  # the column's width: longer is a 400, not a database error
    sdk_version = StrictCharField(max_length=64)
    events = RawJsonField(help_text="Array of In-app event objects: event_name, "
                                   "properties (object), timestamp (Unix ms), session_id "
                                   "(UUID), optional event_id for idempotent retries, "
                                   "optional consent_data (the user's consent when the event "
                                   "happened; the shape of /installs' consent_data).")
    _api_key = StrictCharField(required=False, help_text="Fallback auth for beacons.")

    def validate_events(self, value):
        from tracking.event_batch import MAX_EVENTS_PER_BATCH

        if not isinstance(value, list):
            raise serializers.ValidationError("Must be an array of event objects.")
        if not value:
            raise serializers.ValidationError("Must contain at least one event.")
        if len(value) > MAX_EVENTS_PER_BATCH:
            raise serializers.ValidationError(
                f"At most {MAX_EVENTS_PER_BATCH} events per batch.")
        return value


def event_batch_input(data: dict) -> dict:
    return _validated(data, _event_batch_input_fast, EventBatchInput)


def _event_batch_input_fast(data: dict) -> dict | None:
    """The serializer's validated data for plainly valid input, else None (never an error);
    the events themselves are checked one by one later (tracking/event_batch.py)."""
    from tracking.event_batch import MAX_EVENTS_PER_BATCH

    try:
        app_id = uuid.UUID(hex=data["app_id"])
        sdk_version, events = data["sdk_version"], data["events"]
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    sdk_version = _plain_text(sdk_version, 64)
    if not sdk_version or type(events) is not list or not 0 < len(events) <= MAX_EVENTS_PER_BATCH:
        return None
    validated = {"app_id": app_id, "sdk_version": sdk_version, "events": events}
    if "_api_key" in data:
        api_key = _plain_text(data["_api_key"], 1024)
        if not api_key:
            return None
        validated["_api_key"] = api_key
    return _with_optional_text(validated, data, {"device_id": 64})


class DeepLinkResult(serializers.Serializer):
    """What a short link tells the app to open (docs/links.md, "Deferred deep links"): the
    link's `deep_link_value` (null when it sets none), its parameters and its id."""

    value = serializers.CharField(allow_null=True)
    params = serializers.DictField(child=serializers.CharField())
    link_id = serializers.UUIDField()


class ReengagementResult(serializers.Serializer):
    reengagementId = serializers.UUIDField()  # noqa: N815 - the spec's camelCase
    mediaSource = serializers.CharField(allow_null=True)  # noqa: N815
    campaignId = serializers.CharField(allow_null=True)  # noqa: N815
    attributedTouchTime = serializers.IntegerField()  # noqa: N815
    deepLink = DeepLinkResult(allow_null=True, help_text=(  # noqa: N815
        "The deep link of the re-engagement's click when it came through a short link, as "
        "that link reads now; else null."))


class AttributionResult(serializers.Serializer):
    matchType = serializers.CharField()  # noqa: N815 - the spec's field names
    confidence = serializers.FloatField()
    mediaSource = serializers.CharField(allow_null=True)  # noqa: N815
    campaignId = serializers.CharField(allow_null=True)  # noqa: N815
    isOrganic = serializers.BooleanField()  # noqa: N815
    attributedTouchTime = serializers.IntegerField(allow_null=True)  # noqa: N815
    installId = serializers.UUIDField()  # noqa: N815
    deepLink = DeepLinkResult(allow_null=True, help_text=(  # noqa: N815
        "When the attributed click came through a short link: what the app opens on its first "
        "launch, as the link read when the install was attributed (every repeat answers the "
        "same, whatever happens to the link later). Else null."))
    reengagement = ReengagementResult(required=False, help_text=(
        "Only on a repeat that recorded a re-engagement (docs/decisions.md)."))


class EventBatchResult(serializers.Serializer):
    accepted = serializers.IntegerField()
    rejected = serializers.ListField(child=serializers.DictField())
    warnings = serializers.ListField(child=serializers.DictField())


class ReengagementOutput(serializers.Serializer):
    id = serializers.UUIDField()
    click_id = serializers.UUIDField()
    media_source = serializers.CharField(allow_null=True)
    campaign_id = serializers.CharField(allow_null=True)
    clicked_at = serializers.DateTimeField()
    reengaged_at = serializers.DateTimeField()


@extend_schema_field({"type": "number", "nullable": True})
class MeasuredValue(serializers.Field):
    """A fraud reason's value: whole seconds or a count, as measured (never turned to float)."""

    def to_representation(self, value):
        return value


class FraudReasonOutput(serializers.Serializer):
    reason = serializers.CharField(help_text="The reason code, as AppsFlyer and Adjust name it.")
    value = MeasuredValue(help_text="What was measured: seconds, or a count; null if nothing.")
    sub_reason = serializers.CharField(help_text="Which list, flag or check matched.")


class FraudOutput(serializers.Serializer):
    status = serializers.CharField(help_text="clean | flagged | blocked | post_attribution")
    reasons = FraudReasonOutput(many=True)


@extend_schema_field(FraudOutput)
class InstallFraudField(serializers.Field):
    """The install's fraud verdict, from its two columns (docs/fraud.md)."""

    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, install):
        return {"status": install.fraud_status,
                "reasons": FraudReasonOutput(install.fraud_reasons or [], many=True).data}


class InstallOutput(serializers.Serializer):
    id = serializers.UUIDField()
    app_id = serializers.UUIDField()
    device_id = serializers.CharField(allow_null=True)
    customer_user_id = serializers.CharField(allow_null=True)
    platform = serializers.CharField()
    sdk_version = serializers.CharField()
    os_version = serializers.CharField()
    device_model = serializers.CharField()
    installed_at = serializers.DateTimeField()
    match_type = serializers.CharField()
    confidence = serializers.FloatField()
    is_organic = serializers.BooleanField()
    media_source = serializers.CharField(allow_null=True)
    campaign_id = serializers.CharField(allow_null=True)
    adset = serializers.CharField(allow_null=True)
    ad = serializers.CharField(allow_null=True)
    click_id = serializers.UUIDField(allow_null=True)
    attributed_touch_time = serializers.DateTimeField(allow_null=True)
    link_id = serializers.UUIDField(allow_null=True, help_text=(
        "The short link the attributed click came through, if any."))
    deep_link = DeepLinkResult(allow_null=True, help_text=(
        "The deep link the install was answered with (a snapshot of the link then)."))
    decision = serializers.JSONField(help_text="The decision trail: method, score, factors, "
                                     "steps, and every candidate click with why it lost.")
    platform_metadata = serializers.JSONField(allow_null=True, help_text=(
        "When a platform's own referrer attributed the install (Meta's, decrypted): "
        "{platform, origin (play_referrer | meta_install_referrer), touch (click | view), "
        "campaign: every id and name the platform gave}. Else null."))
    reengagements = ReengagementOutput(many=True)
    fraud = InstallFraudField(help_text=(
        "The fraud rules' verdict and its reasons (docs/fraud.md)."))


class WebJourneyOutput(serializers.Serializer):
    web_id = serializers.CharField()
    landing_url = serializers.CharField(allow_null=True, required=False)
    referrer_host = serializers.CharField(allow_null=True, required=False)
    visit_media_source = serializers.CharField(allow_null=True, required=False)
    visit_campaign = serializers.CharField(allow_null=True, required=False)
    # An app install's journey from a web page (docs/web.md, "Web to app").
    # Absent, not null, when unknown: a web app's own install has none of these.
    web_app_id = serializers.UUIDField(required=False)
    via = serializers.CharField(required=False, help_text=(
        "banner or app_link: what was clicked on the site."))
    joined_by = serializers.CharField(required=False, help_text=(
        "click (the install's click came from the site) or customer_user_id (the site "
        "identified the install's customer)."))


class InstallDetailOutput(InstallOutput):
    consent = ConsentOutput(allow_null=True, help_text=(
        "The user's consent now (docs/privacy.md, \"Consent\"); null when none was ever "
        "sent."))
    web = WebJourneyOutput(required=False, help_text=(
        "The web journey (docs/web.md): a web app's install's landing page and source, or "
        "the web visit an app install came from; absent when none is known."))


def install_answer(outcome) -> dict:
    """The body of POST /installs (`AttributionResult`, spec: Attribution result) for a
    `services.InstallOutcome`. Built by hand, the one place that does: the serializer
    describes it for the schema, and tests/api/test_schema_contract.py holds the two together.
    Serializing through DRF would cost about 0.3 ms an install (docs/decisions.md, "One
    builder for the install answer")."""
    install = outcome.install
    answer = {
        "matchType": install.match_type,
        "confidence": install.confidence,
        "mediaSource": install.media_source,
        "campaignId": install.campaign_id,
        "isOrganic": install.is_organic,
        "attributedTouchTime": _unix_ms(install.attributed_touch_time),
        "installId": str(install.id),
        "deepLink": install.deep_link,
    }
    if outcome.reengagement is not None:
        reengagement = outcome.reengagement
        answer["reengagement"] = {
            "reengagementId": str(reengagement.id),
            "mediaSource": reengagement.media_source,
            "campaignId": reengagement.campaign_id,
            "attributedTouchTime": _unix_ms(reengagement.clicked_at),
            "deepLink": outcome.reengagement_deep_link,
        }
    return answer


def _unix_ms(moment) -> int | None:
    return int(moment.timestamp() * 1000) if moment else None
