"""Single sign-on end to end against real OpenID providers on loopback (docs/teams.md, "Single
sign-on"): oidc-provider-mock for the sign-ins that should work and for what its users' claims
can refuse, a provider of our own (tests/signin/helpers.py) for ID tokens the mock would never
issue. The test client is the browser; the service calls the providers over HTTP through its
one outbound client."""

import pytest
from joserfc.jwk import RSAKey

from accounts.models import User
from audit.models import Entry
from tests.factories import UserFactory
from tests.helpers import client_for
from tests.signin.helpers import (
    TokenIssuer,
    approve_at_mock,
    callback,
    configure,
    mock_provider,
    sso_sign_in,
    started,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _loopback_providers(settings):
    # The providers run on this machine: the address rule refuses loopback by default.
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True


@pytest.fixture
def admin(db):
    return UserFactory(email="admin@example.com", role="admin")


@pytest.fixture
def issuer(admin):
    with mock_provider() as url:
        configure(client_for(admin), issuer=url, role="marketer")
        yield url


def session_user(client):
    return client.session.get("_auth_user_id")


def test_a_new_person_of_an_allowed_domain_joins_with_the_default_role(client, admin, issuer):
    response = sso_sign_in(client, email="newcomer@example.com")

    assert response.status_code == 302 and response["Location"] == "/console/"
    person = User.objects.get(email="newcomer@example.com")
    assert (person.organization_id, person.role, person.has_usable_password()) == (
        admin.organization_id, "marketer", False)
    assert session_user(client) == str(person.id)
    assert client.get("/console/").status_code == 200
    entry = Entry.objects.get(action="auth.login")
    assert (entry.actor_id, entry.changes) == (person.id, {"method": "sso"})


def test_an_existing_member_signs_in_as_themselves(client, admin, issuer):
    member = UserFactory(email="dev@example.com", role="developer",
                         organization=admin.organization)

    response = sso_sign_in(client, email="DEV@example.com", sub="dev-sub")

    assert response.status_code == 302
    assert session_user(client) == str(member.id)
    assert User.objects.get(id=member.id).role == "developer"  # no default role on them


def test_a_person_of_another_organization_is_refused(client, issuer):
    UserFactory(email="taken@example.com")  # their own organization

    response = sso_sign_in(client, email="taken@example.com")

    assert response.status_code == 403
    assert "another organization" in response.content.decode()
    assert session_user(client) is None


def test_an_unverified_email_is_refused(client, issuer):
    response = sso_sign_in(client, email="unsure@example.com",
                           claims={"email_verified": False})

    assert response.status_code == 403
    assert "not verified your email" in response.content.decode()
    assert not User.objects.filter(email="unsure@example.com").exists()
    entry = Entry.objects.get(action="auth.login_failed")
    assert entry.changes["reason"] == "email_unverified"


def test_a_domain_not_allowed_is_refused_though_the_provider_vouches_for_it(client, issuer):
    # Typed with an allowed domain, but the provider says the person is someone else.
    response = sso_sign_in(client, typed="pat@example.com", email="pat@elsewhere.org")

    assert response.status_code == 403
    assert "domain is not one" in response.content.decode()
    assert not User.objects.filter(email="pat@elsewhere.org").exists()


def test_an_email_of_no_connected_domain_cannot_start(client, issuer):
    response = client.post("/console/sso/start", {"email": "someone@unknown.example"})

    assert response.status_code == 403
    assert "No organization signs in with single sign-on" in response.content.decode()


def test_a_wrong_state_is_refused(client, issuer):
    back = approve_at_mock(started(client, "pat@example.com"), sub="pat",
                           claims={"email": "pat@example.com", "email_verified": True})

    response = callback(client, back.replace("state=", "state=forged"))

    assert response.status_code == 403
    assert "could not be matched" in response.content.decode()
    assert not User.objects.filter(email="pat@example.com").exists()


def test_a_callback_without_a_started_sign_in_is_refused(client, issuer):
    back = approve_at_mock(started(client, "pat@example.com"), sub="pat",
                           claims={"email": "pat@example.com", "email_verified": True})
    stranger = type(client)()  # another browser: no state in its session

    assert callback(stranger, back).status_code == 403
    assert callback(client, back).status_code == 302  # the real one still works once
    assert callback(client, back).status_code == 403  # and only once


def test_a_missing_state_is_refused(client, issuer):
    started(client, "pat@example.com")

    assert client.get("/console/sso/callback", {"code": "abc"}).status_code == 403


@pytest.fixture
def own_issuer(admin):
    with TokenIssuer() as provider:
        configure(client_for(admin), issuer=provider.issuer)
        yield provider


def test_our_own_provider_signs_in_when_its_token_is_right(client, own_issuer):
    response = own_issuer.sign_in(client)

    assert response.status_code == 302
    assert User.objects.filter(email="pat@example.com").exists()


def test_an_id_token_signed_by_another_key_is_refused(client, own_issuer):
    own_issuer.signing_key = RSAKey.generate_key(2048, parameters={"kid": "k1"})

    response = own_issuer.sign_in(client)

    assert response.status_code == 403
    assert "not signed by its keys" in response.content.decode()
    assert not User.objects.filter(email="pat@example.com").exists()
    assert Entry.objects.get(action="auth.login_failed").changes["reason"] == "bad_signature"


def test_an_id_token_for_another_audience_is_refused(client, own_issuer):
    own_issuer.audience = "someone-elses-app"

    response = own_issuer.sign_in(client)

    assert response.status_code == 403
    assert "another application" in response.content.decode()
    assert not User.objects.filter(email="pat@example.com").exists()


def test_an_id_token_of_another_issuer_is_refused(client, own_issuer):
    own_issuer.claims_extra = {"iss": "https://impostor.example"}

    assert own_issuer.sign_in(client).status_code == 403


def test_an_expired_id_token_is_refused(client, own_issuer):
    own_issuer.claims_extra = {"iat": 1_000_000, "exp": 1_000_300}

    response = own_issuer.sign_in(client)

    assert response.status_code == 403
    assert "expired" in response.content.decode()


def test_an_id_token_of_another_sign_in_is_refused(client, own_issuer):
    own_issuer.claims_extra = {"nonce": "of-another-sign-in"}

    assert own_issuer.sign_in(client).status_code == 403


def test_a_provider_on_loopback_is_refused_under_the_default_address_rule(client, own_issuer,
                                                                          settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False

    response = client.post("/console/sso/start", {"email": "pat@example.com"})

    assert response.status_code == 403
    assert "could not be reached" in response.content.decode()



def test_an_authorization_endpoint_that_is_not_a_web_address_is_refused(client, own_issuer):
    own_issuer.discovery_extra = {"authorization_endpoint": "javascript:alert(1)"}

    response = client.post("/console/sso/start", {"email": "pat@example.com"})

    assert response.status_code == 403
    assert "javascript:" not in response.content.decode()
