"""The SDK bodies' fast checks must agree with the serializers that own the rules."""

import random
import uuid

import pytest

from tracking.serializers import (
    EventBatchInput,
    InstallInput,
    _event_batch_input_fast,
    _install_input_fast,
    install_input,
)

APP = "3f2b7c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c"
VALID = {"app_id": APP, "platform": "android", "sdk_version": "2.4.0"}

ODD_VALUES = [None, "", " ", "  x  ", "x" * 32, "x" * 33, "x" * 64, "x" * 65, "x" * 129,
              "a\x00b", "é", "\ud800", 0, 1.5, True, [], {}, ["ios"], "ios", "web", "IOS",
              APP, APP.upper(), APP.replace("-", ""), "{" + APP + "}", "not-a-uuid"]
FIELDS = ["app_id", "platform", "sdk_version", "device_id", "install_referrer",
          "screen_resolution", "timezone", "language", "os_version", "device_model", "extra"]


def _bodies(valid, fields, odd_values, *, seed, random_bodies, at_most_changed):
    """The valid body, each field missing and set to each odd value, then random mixes."""
    yield dict(valid)
    for field in fields:
        yield {k: v for k, v in valid.items() if k != field}
        for value in odd_values:
            yield {**valid, field: value}
    rng = random.Random(seed)
    for _ in range(random_bodies):
        body = dict(valid)
        for field in rng.sample(fields, rng.randint(1, at_most_changed)):
            if rng.random() < 0.2:
                body.pop(field, None)
            else:
                body[field] = rng.choice(odd_values)
        yield body


def _assert_fast_check_agrees(fast_check, serializer_class, bodies, *, at_least_accepted):
    """Every body the fast check accepts, the serializer accepts with the same data."""
    accepted = 0
    for body in bodies:
        fast = fast_check(body)
        if fast is None:
            continue
        accepted += 1
        payload = serializer_class(data=body)
        assert payload.is_valid(), body
        assert fast == dict(payload.validated_data), body
    assert accepted > at_least_accepted  # the fast check does take the well-formed bodies


def test_fast_check_accepts_only_what_the_serializer_accepts_and_returns_the_same_data():
    bodies = _bodies(VALID, FIELDS, ODD_VALUES, seed=7, random_bodies=2000, at_most_changed=4)
    extra = [{**VALID, "device_id": "abc", "os_version": " 14 ", "language": "en-US"}]
    _assert_fast_check_agrees(_install_input_fast, InstallInput, [*extra, *bodies],
                              at_least_accepted=300)


def test_fast_check_takes_a_typical_sdk_body():
    body = {**VALID, "device_id": "00000000-aaaa-4bbb-8ccc-000000000001", "timezone": "UTC",
            "install_referrer": "utm_source=x%26y", "extra_field_from_a_newer_sdk": 1}
    assert _install_input_fast(body) == {
        "app_id": uuid.UUID(APP), "platform": "android", "sdk_version": "2.4.0",
        "device_id": "00000000-aaaa-4bbb-8ccc-000000000001", "timezone": "UTC",
        "install_referrer": "utm_source=x%26y"}


def test_anything_else_gets_the_serializers_errors():
    from rest_framework.exceptions import ValidationError

    from attribution_site.api.exceptions import ValidationFailed

    with pytest.raises((ValidationError, ValidationFailed)) as caught:
        install_input({**VALID, "platform": "symbian", "sdk_version": ""})
    assert set(caught.value.detail) == {"platform", "sdk_version"}


EVENTS = [{"event_name": "open", "properties": {}, "timestamp": 1, "session_id": APP}]
BATCH = {"app_id": APP, "sdk_version": "2.4.0", "events": EVENTS}
BATCH_ODD_VALUES = [*ODD_VALUES, [], EVENTS * 500, EVENTS * 501, "x" * 1025, [1, "x"], {"a": 1}]
BATCH_FIELDS = ["app_id", "sdk_version", "device_id", "events", "_api_key", "extra"]


def test_the_batch_fast_check_accepts_only_what_the_serializer_accepts_with_the_same_data():
    bodies = _bodies(BATCH, BATCH_FIELDS, BATCH_ODD_VALUES, seed=11, random_bodies=1500,
                     at_most_changed=3)
    extra = [{**BATCH, "device_id": " abc ", "_api_key": "ak_x_y"}]
    _assert_fast_check_agrees(_event_batch_input_fast, EventBatchInput, [*extra, *bodies],
                              at_least_accepted=200)
