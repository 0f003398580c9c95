"""Two-factor through the API (docs/teams.md, "Two-factor"): enrolment, the login's `otp`,
reuse, recovery codes, the organization's requirement, switching it off, bad inputs. Codes are
computed with pyotp at the time the service is told (`now`), or at the real time for the HTTP
login."""

from datetime import UTC, datetime, timedelta

import pyotp
import pytest
from django.utils import timezone

from audit.models import Entry
from signin import two_factor
from signin.models import RecoveryCode, TotpDevice
from tests.factories import UserFactory
from tests.helpers import client_for

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"  # tests/factories.py
LOGIN = "/api/v1/auth/login"


@pytest.fixture
def person(db):
    return UserFactory(email="pat@example.com", role="viewer")


def enrolled(user) -> tuple[str, list[str]]:
    """Two-factor on for `user` through the API: its seed and recovery codes."""
    api = client_for(user)
    enrolment = api.post("/api/v1/auth/otp/enrol")
    assert enrolment.status_code == 200, enrolment.content
    secret = enrolment.json()["data"]["secret"]
    confirmed = api.post("/api/v1/auth/otp/confirm",
                         {"otp": pyotp.TOTP(secret).now()}, format="json")
    assert confirmed.status_code == 200, confirmed.content
    return secret, confirmed.json()["data"]["recovery_codes"]


def login(api, user, **extra):
    return api.post(LOGIN, {"email": user.email, "password": PASSWORD, **extra}, format="json")


def test_enrolment_answers_a_seed_its_uri_and_an_svg_qr_code(person):
    answer = client_for(person).post("/api/v1/auth/otp/enrol").json()["data"]

    assert answer["otpauth_uri"].startswith("otpauth://totp/")
    assert answer["secret"] in answer["otpauth_uri"]
    assert answer["qr_svg"].startswith("data:image/svg+xml")
    assert TotpDevice.objects.get(user=person).confirmed_at is None
    assert answer["secret"] not in TotpDevice.objects.get(user=person).secret  # encrypted


def test_confirming_turns_it_on_with_ten_recovery_codes_kept_hashed(person):
    secret, codes = enrolled(person)

    assert len(codes) == 10
    stored = set(RecoveryCode.objects.filter(user=person).values_list("code_hash", flat=True))
    assert len(stored) == 10 and not stored & set(codes)
    status = client_for(person).get("/api/v1/auth/otp").json()["data"]["two_factor"]
    assert status == {"enabled": True, "required": False, "recovery_codes_left": 10}


def test_a_login_without_otp_is_told_it_is_required_and_not_counted(api, person, settings):
    settings.LOGIN_RATE_LIMIT = "1/m"
    enrolled(person)

    for _ in range(3):
        response = login(api, person)
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "UNAUTHORIZED"
        assert response.json()["error"]["details"] == {"otp": ["required"]}
    assert not Entry.objects.filter(action="auth.login_failed").exists()


def test_a_login_with_a_current_code_gets_a_token_and_the_code_works_once(api, person):
    secret, _ = enrolled(person)
    TotpDevice.objects.filter(user=person).update(last_step=None)  # the confirm's code again
    code = pyotp.TOTP(secret).now()

    first = login(api, person, otp=code)
    again = login(api, person, otp=code)

    assert first.status_code == 200 and "token" in first.json()["data"]
    assert again.status_code == 401
    assert again.json()["error"]["details"] == {"otp": ["wrong"]}


def test_a_wrong_code_is_counted_like_a_wrong_password(api, person, settings):
    settings.LOGIN_RATE_LIMIT = "2/m"
    secret, _ = enrolled(person)

    assert login(api, person, otp="000000").status_code == 401
    assert login(api, person, otp="000001").status_code == 401
    assert login(api, person, otp=pyotp.TOTP(secret).now()).status_code == 429
    assert Entry.objects.filter(action="auth.login_failed",
                                changes__reason="bad_otp").count() == 2


def test_a_recovery_code_logs_in_once(api, person):
    _, codes = enrolled(person)

    assert login(api, person, otp=codes[3].upper()).status_code == 200
    assert login(api, person, otp=codes[3]).status_code == 401
    assert client_for(person).get("/api/v1/auth/otp").json()["data"]["two_factor"][
        "recovery_codes_left"] == 9


@pytest.mark.parametrize("otp", ["12a456", "12345", "1234567", "not a code at all"])
def test_a_malformed_code_is_a_400(api, person, otp):
    enrolled(person)

    response = login(api, person, otp=otp)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert "otp" in response.json()["error"]["details"]


@pytest.mark.parametrize("otp", ["12a456", "12345", 123456])
def test_a_malformed_confirmation_is_a_400(person, otp):
    api = client_for(person)
    api.post("/api/v1/auth/otp/enrol")

    response = api.post("/api/v1/auth/otp/confirm", {"otp": otp}, format="json")

    assert response.status_code == 400
    assert "otp" in response.json()["error"]["details"]


def test_the_service_rules_move_with_the_clock(person):
    enrolment = two_factor.totp_enrol(user=person)
    seed = pyotp.TOTP(enrolment.secret)
    noon = datetime(2026, 12, 7, 12, 0, 5, tzinfo=UTC)
    two_factor.totp_confirm(user=person, otp=seed.at(noon), now=noon)

    later = noon + timedelta(minutes=5)
    assert not two_factor.second_factor_spent(user=person, otp=seed.at(noon), now=later)
    assert two_factor.second_factor_spent(user=person, otp=seed.at(later - timedelta(seconds=30)),
                                          now=later)
    # The step after the one just used is still good; that one is not, nor any before it.
    assert not two_factor.second_factor_spent(
        user=person, otp=seed.at(later - timedelta(seconds=30)), now=later)
    assert two_factor.second_factor_spent(user=person, otp=seed.at(later), now=later)
    assert not two_factor.second_factor_spent(user=person, otp=seed.at(later), now=later)


def test_a_wrong_confirmation_code_leaves_it_off(person):
    api = client_for(person)
    api.post("/api/v1/auth/otp/enrol")

    response = api.post("/api/v1/auth/otp/confirm", {"otp": "000000"}, format="json")

    assert response.status_code == 400
    assert TotpDevice.objects.get(user=person).confirmed_at is None


def test_enrolling_again_while_on_is_a_conflict(person):
    enrolled(person)

    assert client_for(person).post("/api/v1/auth/otp/enrol").status_code == 409


def test_switching_off_needs_a_code_or_the_password(api, person):
    secret, _ = enrolled(person)
    me = client_for(person)

    assert me.delete("/api/v1/auth/otp", {}, format="json").status_code == 400
    assert me.delete("/api/v1/auth/otp", {"password": "wrong"},
                     format="json").status_code == 401
    assert me.delete("/api/v1/auth/otp", {"password": PASSWORD},
                     format="json").status_code == 200
    assert not TotpDevice.objects.filter(user=person).exists()
    assert login(api, person).status_code == 200


def test_an_admin_requires_two_factor_and_it_cannot_be_switched_off(api, person):
    admin = UserFactory(email="admin@example.com", role="admin",
                        organization=person.organization)
    boss = client_for(admin)
    assert client_for(person).put("/api/v1/org/two-factor", {"required": True},
                                  format="json").status_code == 403

    response = boss.put("/api/v1/org/two-factor", {"required": True}, format="json")

    assert response.status_code == 200
    assert response.json()["data"] == {"two_factor": {"required": True}}
    refused = login(api, person)
    assert refused.status_code == 403
    assert refused.json()["error"]["details"] == {"otp": ["enrolment_required"]}
    secret, _ = enrolled(person)
    assert client_for(person).delete("/api/v1/auth/otp", {"password": PASSWORD},
                                     format="json").status_code == 403
    assert login(api, person, otp=pyotp.TOTP(secret).at(timezone.now() + timedelta(
        seconds=30))).status_code == 200


def test_the_requirement_takes_a_boolean(person):
    admin = UserFactory(email="admin@example.com", role="admin",
                        organization=person.organization)

    response = client_for(admin).put("/api/v1/org/two-factor", {"required": "yes"},
                                     format="json")

    assert response.status_code == 400
    assert "required" in response.json()["error"]["details"]


def test_the_audit_log_masks_the_codes_sent(person):
    secret, _ = enrolled(person)

    entry = Entry.objects.get(action="otp_confirm.create")
    assert entry.changes == {"otp": "***"}
