"""Sign-up, login and me (spec: Authentication endpoints)."""

import json
from datetime import timedelta

import jwt
import pytest
from rest_framework_simplejwt.tokens import AccessToken

from accounts.models import Organization, User

pytestmark = pytest.mark.django_db

SIGNUP = "/api/v1/auth/signup"
LOGIN = "/api/v1/auth/login"
ME = "/api/v1/auth/me"


def signup_body(**overrides):
    body = {"email": "Ada@Example.com", "password": "s3cret-pass", "name": "Ada Lovelace",
            "company_name": "Analytical Engines"}
    body.update(overrides)
    return body


def test_signup_creates_organization_and_admin_and_returns_token(api):
    response = api.post(SIGNUP, signup_body(), format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["success"] is True
    user = body["data"]["user"]
    assert user["email"] == "ada@example.com"
    assert user["name"] == "Ada Lovelace"
    assert user["role"] == "admin"
    assert body["data"]["token"]
    stored = User.objects.get(email="ada@example.com")
    assert str(stored.id) == user["id"]
    assert str(stored.organization_id) == user["org_id"]
    assert Organization.objects.get(id=stored.organization_id).name == "Analytical Engines"
    assert stored.check_password("s3cret-pass")


def test_signup_token_works_for_me(api):
    token = api.post(SIGNUP, signup_body(), format="json").json()["data"]["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    response = api.get(ME)
    assert response.status_code == 200
    assert response.json()["data"]["email"] == "ada@example.com"


def test_signup_with_registered_email_is_conflict_whatever_the_case(api):
    api.post(SIGNUP, signup_body(), format="json")
    response = api.post(SIGNUP, signup_body(email="ADA@example.com"), format="json")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "CONFLICT"
    assert User.objects.count() == 1
    assert Organization.objects.count() == 1


@pytest.mark.parametrize("field,value,message_part", [
    ("password", "short", "at least 8"),
    ("email", "not-an-email", "valid email"),
    ("name", 42, "string"),
    ("company_name", None, "null"),
])
def test_signup_rejects_bad_fields_with_details(api, field, value, message_part):
    response = api.post(SIGNUP, signup_body(**{field: value}), format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert message_part in " ".join(error["details"][field])
    assert User.objects.count() == 0


def test_signup_requires_every_field(api):
    response = api.post(SIGNUP, {}, format="json")
    assert response.status_code == 400
    assert set(response.json()["error"]["details"]) == {"email", "password", "name",
                                                        "company_name"}


def test_login_returns_token_and_user(api, owner):
    response = api.post(LOGIN, {"email": "OWNER@example.com",
                                "password": "correct horse battery"}, format="json")
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["user"]["id"] == str(owner.id)
    assert data["user"]["org_id"] == str(owner.organization_id)
    assert data["token"]


@pytest.mark.parametrize("email,password", [
    ("owner@example.com", "wrong password"),
    ("nobody@example.com", "correct horse battery"),
])
def test_login_gives_one_message_for_unknown_email_and_wrong_password(api, owner, email,
                                                                     password):
    response = api.post(LOGIN, {"email": email, "password": password}, format="json")
    assert response.status_code == 401
    assert response.json()["error"] == {"code": "UNAUTHORIZED",
                                        "message": "Invalid email or password.", "details": {}}


def test_login_without_password_is_validation_error(api):
    response = api.post(LOGIN, {"email": "a@b.co"}, format="json")
    assert response.status_code == 400
    assert "password" in response.json()["error"]["details"]


def test_login_attempts_are_limited_per_email_and_address(api, owner, settings):
    settings.LOGIN_RATE_LIMIT = "3/15m"
    body = {"email": "owner@example.com", "password": "wrong password"}
    statuses = [api.post(LOGIN, body, format="json").status_code for _ in range(4)]
    assert statuses == [401, 401, 401, 429]
    blocked = api.post(LOGIN, {**body, "password": "correct horse battery"}, format="json")
    assert blocked.status_code == 429
    assert blocked.json()["error"]["code"] == "RATE_LIMITED"
    assert int(blocked["Retry-After"]) >= 1
    other_email = api.post(LOGIN, {"email": "x@example.com", "password": "whatever1"},
                           format="json")
    assert other_email.status_code == 401


def test_a_right_password_is_never_limited_for_being_used_often(api, owner, settings):
    settings.LOGIN_RATE_LIMIT = "3/15m"
    settings.LOGIN_RATE_LIMIT_PER_ADDRESS = "3/15m"
    body = {"email": "owner@example.com", "password": "correct horse battery"}
    assert [api.post(LOGIN, body, format="json").status_code for _ in range(6)] == [200] * 6
    wrong = {**body, "password": "wrong password"}
    assert [api.post(LOGIN, wrong, format="json").status_code for _ in range(4)] == [
        401, 401, 401, 429]


def test_a_run_of_the_references_checks_signs_up_as_often_as_it_needs(api):
    statuses = {api.post(SIGNUP, {"email": f"check-{n}@example.com", "password": "long enough",
                                  "name": "Check", "company_name": f"Check {n}"},
                         format="json").status_code for n in range(25)}
    assert statuses == {201}


def test_me_returns_the_caller(owner_api, owner):
    response = owner_api.get(ME)
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {
        "id": str(owner.id), "email": owner.email, "name": owner.name, "role": "admin",
        "org_id": str(owner.organization_id)}}


@pytest.mark.parametrize("header", [None, "Bearer not-a-jwt", "Token abc"])
def test_me_without_valid_token_is_unauthorized(api, header):
    if header:
        api.credentials(HTTP_AUTHORIZATION=header)
    response = api.get(ME)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHORIZED"


TOKEN_REFUSED = {"code": "UNAUTHORIZED", "message": "The token is invalid or expired.",
                 "details": {"authorization": [
                     "Send a current token as `Authorization: Bearer <token>`: log in again "
                     "(POST /api/v1/auth/login) for a new one."]}}
# What simplejwt's own refusal carried into the message before.
INTERNALS = ("AccessToken", "token_class", "token_type", "token_not_valid", "ErrorDetail",
             "messages", "user_not_found", "bad_authorization_header", "Given token")


def expired_token(user) -> str:
    token = AccessToken.for_user(user)
    token.set_exp(lifetime=-timedelta(minutes=1))
    return str(token)


def foreign_signature(user) -> str:
    claims = dict(AccessToken.for_user(user).payload)
    return jwt.encode(claims, "another-deployments-secret-key-0123456789", algorithm="HS256")


@pytest.mark.parametrize("make", [
    lambda user: "not-a-jwt",
    lambda user: "a.b.c",
    lambda user: str(AccessToken.for_user(user))[:-4] + "AAAA",
    expired_token,
    foreign_signature,
], ids=["malformed", "three-garbage-parts", "tampered", "expired", "another-key"])
def test_a_refused_token_gets_one_plain_answer(api, owner, make):
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {make(owner)}")
    response = api.get(ME)
    assert response.status_code == 401
    assert response.json() == {"success": False, "error": TOKEN_REFUSED}
    assert not any(word in json.dumps(response.json()) for word in INTERNALS)


@pytest.mark.parametrize("gone", ["deleted", "deactivated"])
def test_the_token_of_a_user_gone_since_gets_the_same_answer(api, owner, gone):
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {AccessToken.for_user(owner)}")
    if gone == "deleted":
        owner.delete()
    else:
        User.objects.filter(id=owner.id).update(is_active=False)
    response = api.get(ME)
    assert response.status_code == 401
    assert response.json() == {"success": False, "error": TOKEN_REFUSED}


def test_a_bearer_header_without_a_token_gets_the_same_answer(api):
    api.credentials(HTTP_AUTHORIZATION="Bearer")
    response = api.get(ME)
    assert response.status_code == 401
    assert response.json()["error"] == TOKEN_REFUSED


def test_a_request_without_a_token_still_says_none_was_sent(api):
    response = api.get(ME)
    assert response.status_code == 401
    assert response.json()["error"] == {
        "code": "UNAUTHORIZED", "message": "Authentication credentials were not provided.",
        "details": {}}


def test_deactivated_user_token_stops_working(owner_api, owner):
    owner.is_active = False
    owner.save()
    assert owner_api.get(ME).status_code == 401
