"""The second factor's rules (signin/totp.py): pure, the time passed in."""

from datetime import UTC, datetime, timedelta

import pyotp

from signin import totp

SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
NOW = datetime(2026, 12, 7, 12, 0, 10, tzinfo=UTC)


def code(at: datetime) -> str:
    return pyotp.TOTP(SECRET).at(at)


def test_the_current_code_matches_its_step():
    assert totp.matched_step(secret=SECRET, code=code(NOW), now=NOW,
                             last_step=None) == totp.step_at(NOW)


def test_a_code_one_step_off_either_way_is_accepted():
    for offset in (-30, 30):
        assert totp.matched_step(secret=SECRET, code=code(NOW + timedelta(seconds=offset)),
                                 now=NOW, last_step=None) is not None


def test_a_code_two_steps_off_is_refused():
    for offset in (-60, 60):
        assert totp.matched_step(secret=SECRET, code=code(NOW + timedelta(seconds=offset)),
                                 now=NOW, last_step=None) is None


def test_a_code_of_the_last_accepted_step_or_before_is_refused():
    step = totp.step_at(NOW)
    assert totp.matched_step(secret=SECRET, code=code(NOW), now=NOW, last_step=step) is None
    assert totp.matched_step(secret=SECRET, code=code(NOW - timedelta(seconds=30)), now=NOW,
                             last_step=step - 1) is None
    assert totp.matched_step(secret=SECRET, code=code(NOW + timedelta(seconds=30)), now=NOW,
                             last_step=step) == step + 1


def test_codes_of_the_wrong_shape_never_match():
    for text in ("12345", "1234567", "12a456", "", "١٢٣٤٥٦"):
        assert totp.matched_step(secret=SECRET, code=text, now=NOW, last_step=None) is None
        assert not totp.is_code_shaped(text)


def test_ten_recovery_codes_differ_and_read_back_however_typed():
    codes = totp.recovery_codes_new()
    assert len(set(codes)) == 10
    first = codes[0]
    assert totp.recovery_normalized(first.upper().replace("-", " ")) == first
    assert totp.recovery_normalized(first.replace("-", "")) == first
    assert totp.otp_shape_problem(first) is None


def test_text_that_is_neither_a_code_nor_a_recovery_code_is_named():
    assert totp.otp_shape_problem("abc") == totp.OTP_SHAPE
    assert totp.otp_shape_problem("0000-0000-0000-0000") == totp.OTP_SHAPE  # 0 is not used
    assert totp.otp_shape_problem("123456") is None


def test_the_provisioning_uri_names_the_account_and_the_issuer():
    uri = totp.provisioning_uri(secret=SECRET, account="pat@example.com", issuer="Attribution")
    assert uri.startswith("otpauth://totp/Attribution:pat%40example.com?")
    assert f"secret={SECRET}" in uri and "issuer=Attribution" in uri
