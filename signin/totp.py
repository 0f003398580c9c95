"""TOTP codes (RFC 6238) and recovery codes: the rules of the second factor. Pure: no ORM, no
clock (the time is passed in); pyotp computes the codes.

A code is accepted in the current 30-second step or the one before or after (a phone's clock
a little off, a code typed as it turned), and only in a step after the last one accepted, so
a code seen over a shoulder cannot be used again. Recovery codes are random, shown once and
kept as their SHA-256: 80 random bits leave nothing to guess from a database dump.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime

import pyotp

STEP_SECONDS = 30
DIGITS = 6
WINDOW = 1  # steps either side of now
RECOVERY_CODE_COUNT = 10
RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i to misread
RECOVERY_GROUPS, RECOVERY_GROUP_LENGTH = 4, 4

CODE_SHAPE = f"Must be the {DIGITS} digits your authenticator app shows."
OTP_SHAPE = (f"Must be the {DIGITS} digits your authenticator app shows, or one of your "
             "recovery codes.")


def secret_new() -> str:
    return pyotp.random_base32()


def provisioning_uri(*, secret: str, account: str, issuer: str) -> str:
    """The otpauth:// URI an authenticator app reads from the QR code."""
    return pyotp.TOTP(secret).provisioning_uri(name=account, issuer_name=issuer)


def step_at(now: datetime) -> int:
    return int(now.timestamp()) // STEP_SECONDS


def code_at(secret: str, step: int) -> str:
    return pyotp.TOTP(secret).generate_otp(step)


def is_code_shaped(text: str) -> bool:
    return len(text) == DIGITS and text.isascii() and text.isdigit()


def matched_step(*, secret: str, code: str, now: datetime, last_step: int | None) -> int | None:
    """The step `code` is good for, near `now` and after `last_step`; None when it is not."""
    if not is_code_shaped(code):
        return None
    current = step_at(now)
    for step in range(current - WINDOW, current + WINDOW + 1):
        if last_step is not None and step <= last_step:
            continue
        if hmac.compare_digest(code_at(secret, step), code):
            return step
    return None


def recovery_codes_new() -> list[str]:
    return ["-".join("".join(secrets.choice(RECOVERY_ALPHABET)
                             for _ in range(RECOVERY_GROUP_LENGTH))
                     for _ in range(RECOVERY_GROUPS))
            for _ in range(RECOVERY_CODE_COUNT)]


def recovery_normalized(text: str) -> str | None:
    """A recovery code as typed (any case, spaces or dashes anywhere) in its stored form, or
    None when it cannot be one."""
    letters = "".join(ch for ch in text.lower() if ch not in " -")
    if len(letters) != RECOVERY_GROUPS * RECOVERY_GROUP_LENGTH or not all(
            ch in RECOVERY_ALPHABET for ch in letters):
        return None
    return "-".join(letters[i:i + RECOVERY_GROUP_LENGTH]
                    for i in range(0, len(letters), RECOVERY_GROUP_LENGTH))


def recovery_hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def otp_shape_problem(text: str) -> str | None:
    """Why `text` can be neither a code nor a recovery code, or None."""
    if is_code_shaped(text) or recovery_normalized(text) is not None:
        return None
    return OTP_SHAPE
