"""Two-factor authentication with TOTP (docs/teams.md, "Two-factor"): enrolment, the ten
recovery codes, switching it off, an organization's requirement, and the password login's
check of the second factor. The rules of a code are signin/totp.py's; here they meet the
rows, and the time is passed in (`now`) so tests move the clock by passing another.

A code is claimed with a conditional UPDATE on the device's `last_step`, and a recovery code
with one on its `used_at`: two logins racing with the same code cannot both get in.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

import segno
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.login_checks import EnrolmentNeeded, SecondFactorNeeded, WrongSecondFactor
from accounts.models import User
from attribution_site.api.exceptions import Conflict, Forbidden, Unauthorized, ValidationFailed
from attribution_site.secrets import TOTP_SEED, secret_decrypt, secret_encrypt
from signin import totp
from signin.models import RecoveryCode, TotpDevice, TwoFactorRule

ISSUER_NAME = "Attribution"
OTP_REQUIRED = "Two-factor authentication is on for this account: send `otp`, a current code "
OTP_REQUIRED += "from your authenticator app or one of your recovery codes."
OTP_WRONG = "The two-factor code is wrong, was used already, or has expired."
ENROL_FIRST = ("Your organization requires two-factor authentication: log in on the console "
               "to set it up, then log in here with a code.")
ALREADY_ON = "Two-factor authentication is on already; switch it off first to enrol again."
NOT_ENROLLING = "Start with POST /api/v1/auth/otp/enrol: no enrolment is waiting for a code."
NOT_ON = "Two-factor authentication is not on for this account."
STILL_REQUIRED = ("Your organization requires two-factor authentication: it cannot be switched "
                  "off.")
PROOF_NEEDED = "Send a current code (`otp`) or your password (`password`)."


@dataclass(frozen=True)
class Enrolment:
    secret: str
    otpauth_uri: str
    qr_svg_data_uri: str


@dataclass(frozen=True)
class TwoFactorStatus:
    enabled: bool
    required: bool
    recovery_codes_left: int


def two_factor_status(*, user: User) -> TwoFactorStatus:
    return TwoFactorStatus(
        enabled=_device(user, confirmed=True) is not None,
        required=two_factor_required(organization_id=user.organization_id),
        recovery_codes_left=RecoveryCode.objects.filter(user=user, used_at=None).count())


def two_factor_required(*, organization_id: uuid.UUID | None) -> bool:
    return organization_id is not None and TwoFactorRule.objects.filter(
        organization_id=organization_id, required=True).exists()


def two_factor_require(*, organization_id: uuid.UUID, required: bool) -> bool:
    TwoFactorRule.objects.update_or_create(
        organization_id=organization_id,
        defaults={"required": required, "updated_at": timezone.now()})
    return required


def totp_enrol(*, user: User) -> Enrolment:
    """A new seed waiting for its first code (a previous unconfirmed one is replaced)."""
    if _device(user, confirmed=True) is not None:
        raise Conflict(ALREADY_ON)
    secret = totp.secret_new()
    TotpDevice.objects.update_or_create(user=user, defaults={
        "secret": secret_encrypt(secret, purpose=TOTP_SEED), "confirmed_at": None,
        "last_step": None})
    return enrolment_of(user=user, secret=secret)


def enrolment_of(*, user: User, secret: str) -> Enrolment:
    uri = totp.provisioning_uri(secret=secret, account=user.email, issuer=ISSUER_NAME)
    return Enrolment(secret=secret, otpauth_uri=uri,
                     qr_svg_data_uri=segno.make(uri, error="m").svg_data_uri(scale=4))


def pending_enrolment(*, user: User) -> Enrolment | None:
    """The enrolment waiting for its first code, for a page shown again."""
    device = _device(user, confirmed=False)
    if device is None:
        return None
    return enrolment_of(user=user, secret=secret_decrypt(device.secret, purpose=TOTP_SEED))


def totp_confirm(*, user: User, otp: str, now: datetime) -> list[str]:
    """Turn two-factor on with a first good code; the ten recovery codes, to show once."""
    _shaped_code(otp)
    with transaction.atomic():
        device = TotpDevice.objects.select_for_update().filter(user=user).first()
        if device is None or device.confirmed_at is not None:
            raise Conflict(ALREADY_ON if device is not None else NOT_ENROLLING)
        step = totp.matched_step(secret=secret_decrypt(device.secret, purpose=TOTP_SEED),
                                 code=otp, now=now, last_step=None)
        if step is None:
            raise ValidationFailed("Invalid input: otp.", {"otp": [OTP_WRONG]})
        device.confirmed_at, device.last_step = now, step
        device.save(update_fields=["confirmed_at", "last_step"])
        codes = totp.recovery_codes_new()
        RecoveryCode.objects.filter(user=user).delete()
        RecoveryCode.objects.bulk_create([RecoveryCode(user=user, code_hash=totp.recovery_hash(c))
                                          for c in codes])
    return codes


def totp_disable(*, user: User, otp: str | None, password: str | None, now: datetime) -> None:
    """Switch two-factor off, proven by a current code or the password; refused while the
    organization requires it."""
    if _device(user, confirmed=True) is None:
        raise Conflict(NOT_ON)
    if two_factor_required(organization_id=user.organization_id):
        raise Forbidden(STILL_REQUIRED)
    if otp:
        _shaped_otp(otp)
        if not second_factor_spent(user=user, otp=otp, now=now):
            raise Unauthorized(OTP_WRONG, {"otp": ["wrong"]})
    elif password:
        if not user.check_password(password):
            raise Unauthorized("The password is wrong.", {"password": ["wrong"]})
    else:
        raise ValidationFailed(PROOF_NEEDED, {"otp": [PROOF_NEEDED]})
    with transaction.atomic():
        TotpDevice.objects.filter(user=user).delete()
        RecoveryCode.objects.filter(user=user).delete()


def second_factor_check(user: User, *, otp: str | None, now: datetime | None = None) -> None:
    """accounts' check after the password (accounts/login_checks.py)."""
    if _device(user, confirmed=True) is None:
        if two_factor_required(organization_id=user.organization_id):
            raise EnrolmentNeeded(ENROL_FIRST, {"otp": ["enrolment_required"]}, user=user)
        return
    if not otp:
        raise SecondFactorNeeded(OTP_REQUIRED, {"otp": ["required"]})
    _shaped_otp(otp)
    if not second_factor_spent(user=user, otp=otp, now=now or timezone.now()):
        raise WrongSecondFactor(OTP_WRONG, {"otp": ["wrong"]})


def second_factor_spent(*, user: User, otp: str, now: datetime) -> bool:
    """Whether `otp` is a good code (claimed: its step becomes the last one) or an unused
    recovery code (claimed: used up)."""
    if totp.is_code_shaped(otp):
        device = _device(user, confirmed=True)
        if device is None:
            return False
        step = totp.matched_step(secret=secret_decrypt(device.secret, purpose=TOTP_SEED),
                                 code=otp, now=now, last_step=device.last_step)
        return step is not None and TotpDevice.objects.filter(
            Q(last_step__isnull=True) | Q(last_step__lt=step), user=user,
        ).update(last_step=step) == 1
    code = totp.recovery_normalized(otp)
    return code is not None and RecoveryCode.objects.filter(
        user=user, code_hash=totp.recovery_hash(code), used_at=None).update(used_at=now) == 1


def _shaped_code(otp: str) -> None:
    if not totp.is_code_shaped(otp):
        raise ValidationFailed("Invalid input: otp.", {"otp": [totp.CODE_SHAPE]})


def _shaped_otp(otp: str) -> None:
    problem = totp.otp_shape_problem(otp)
    if problem:
        raise ValidationFailed("Invalid input: otp.", {"otp": [problem]})


def _device(user: User, *, confirmed: bool) -> TotpDevice | None:
    return TotpDevice.objects.filter(user=user, confirmed_at__isnull=not confirmed).first()
