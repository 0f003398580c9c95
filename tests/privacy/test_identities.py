"""privacy.identities and privacy.policy: pure, no database."""

import hashlib

import pytest

from privacy import identities, policy


def test_advertising_ids_are_read_as_the_sdk_endpoints_store_them():
    assert identities.identity_normalize(
        "ios_advertising_id", " 3F1C2A9E-0D4B-4E8F-9A61-5B7C8D9E0F12 ") == (
        "3f1c2a9e-0d4b-4e8f-9a61-5b7c8d9e0f12")


@pytest.mark.parametrize("value", ["hello", "gaid-1234", "3f1c2a9e0d4b4e8f9a615b7c8d9e0f12",
                                   "3f1c2a9e-0d4b-4e8f-9a61-5b7c8d9e0f1", "{3f1c2a9e-0d4b-4e8f-9a61"
                                   "-5b7c8d9e0f12}", "3f1c2a9e-0d4b-4e8f-9a61-5b7c8d9e0f1g"])
@pytest.mark.parametrize("identity_type", identities.DEVICE_ID_TYPES)
def test_a_device_id_must_be_written_as_a_device_hands_it_out(identity_type, value):
    with pytest.raises(ValueError, match="Must be a device's advertising id: a UUID"):
        identities.identity_normalize(identity_type, value)


def test_the_zeroed_advertising_id_names_no_device():
    with pytest.raises(ValueError, match="names no device"):
        identities.identity_normalize("ios_advertising_id",
                                      "00000000-0000-0000-0000-000000000000")


def test_an_install_id_must_be_a_uuid():
    with pytest.raises(ValueError, match="UUID"):
        identities.identity_normalize("install_id", "not-a-uuid")


def test_a_customer_id_keeps_its_case():
    assert identities.identity_normalize("customer_user_id", "User-42") == "User-42"


def test_the_hash_covers_type_and_value():
    expected = hashlib.sha256(b"customer_user_id:42").hexdigest()
    assert identities.identity_hash("customer_user_id", "42") == expected
    assert identities.identity_hash("install_id", "42") != expected


@pytest.mark.parametrize(("status_code", "error", "invalid", "number", "state", "retries"), [
    (204, None, False, 1, "succeeded", False),
    (500, None, False, 1, "failed", True),
    (429, None, False, 2, "failed", True),
    (None, "timed out", False, 3, "failed", True),
    (404, None, False, 1, "failed", False),
    (None, "loopback refused", True, 1, "failed", False),
    (500, None, False, policy.MAX_ATTEMPTS, "failed", False),
])
def test_callback_outcomes(status_code, error, invalid, number, state, retries):
    decision = policy.decide(status_code=status_code, error=error, invalid=invalid,
                             attempt_number=number, jitter=0.5)
    assert decision.state == state
    assert (decision.retry_in is not None) == retries


def test_a_callback_is_given_up_after_its_last_try():
    assert not policy.exhausted(policy.MAX_ATTEMPTS - 1)
    assert policy.exhausted(policy.MAX_ATTEMPTS)
