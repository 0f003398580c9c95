"""The install body's fast check must agree with the serializer that owns the rules."""

import random
import uuid

import pytest

from tracking.serializers import InstallInput, _install_input_fast, install_input

APP = "3f2b7c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c"
VALID = {"app_id": APP, "platform": "android", "sdk_version": "2.4.0"}

ODD_VALUES = [None, "", " ", "  x  ", "x" * 32, "x" * 33, "x" * 64, "x" * 65, "x" * 129,
              "a\x00b", "é", "\ud800", 0, 1.5, True, [], {}, ["ios"], "ios", "web", "IOS",
              APP, APP.upper(), APP.replace("-", ""), "{" + APP + "}", "not-a-uuid"]
FIELDS = ["app_id", "platform", "sdk_version", "device_id", "install_referrer",
          "screen_resolution", "timezone", "language", "os_version", "device_model", "extra"]


def _serializer_result(body):
    payload = InstallInput(data=body)
    return dict(payload.validated_data) if payload.is_valid() else None


def _bodies():
    yield dict(VALID)
    yield {**VALID, "device_id": "abc", "os_version": " 14 ", "language": "en-US"}
    for field in FIELDS:
        yield {k: v for k, v in VALID.items() if k != field}
        for value in ODD_VALUES:
            yield {**VALID, field: value}
    rng = random.Random(7)
    for _ in range(2000):
        body = dict(VALID)
        for field in rng.sample(FIELDS, rng.randint(1, 4)):
            if rng.random() < 0.2:
                body.pop(field, None)
            else:
                body[field] = rng.choice(ODD_VALUES)
        yield body


def test_fast_check_accepts_only_what_the_serializer_accepts_and_returns_the_same_data():
    accepted = 0
    for body in _bodies():
        fast = _install_input_fast(body)
        if fast is None:
            continue
        accepted += 1
        assert fast == _serializer_result(body), body
    assert accepted > 300  # the fast check does take the well-formed bodies


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


def _batches():
    yield dict(BATCH)
    yield {**BATCH, "device_id": " abc ", "_api_key": "ak_x_y"}
    for field in BATCH_FIELDS:
        yield {k: v for k, v in BATCH.items() if k != field}
        for value in BATCH_ODD_VALUES:
            yield {**BATCH, field: value}
    rng = random.Random(11)
    for _ in range(1500):
        body = dict(BATCH)
        for field in rng.sample(BATCH_FIELDS, rng.randint(1, 3)):
            if rng.random() < 0.2:
                body.pop(field, None)
            else:
                body[field] = rng.choice(BATCH_ODD_VALUES)
        yield body


def test_the_batch_fast_check_accepts_only_what_the_serializer_accepts_with_the_same_data():
    from tracking.serializers import EventBatchInput, _event_batch_input_fast

    accepted = 0
    for body in _batches():
        fast = _event_batch_input_fast(body)
        if fast is None:
            continue
        accepted += 1
        payload = EventBatchInput(data=body)
        assert payload.is_valid(), body
        assert fast == dict(payload.validated_data), body
    assert accepted > 200
