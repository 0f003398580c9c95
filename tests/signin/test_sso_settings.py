"""An organization's single sign-on settings through the API, and `enforce` on the password
logins (docs/teams.md, "Single sign-on")."""

import pytest

from attribution_site.secrets import SSO_CLIENT_SECRET, secret_decrypt
from audit.models import Entry
from signin.models import SsoConnection
from tests.factories import UserFactory
from tests.helpers import client_for
from tests.signin.helpers import CLIENT_SECRET, configure

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"  # tests/factories.py
ISSUER = "https://idp.example.com"  # never called: saving checks the address rule only
SSO = "/api/v1/org/sso"


@pytest.fixture
def admin(db):
    return UserFactory(email="admin@example.com", role="admin")


@pytest.fixture
def admin_api(admin):
    return client_for(admin)


def body(**extra):
    return {"issuer": ISSUER, "client_id": "console", "client_secret": CLIENT_SECRET,
            "allowed_domains": ["Example.com", "example.org."], "default_role": "developer",
            "enforce": False, **extra}


def test_nothing_is_set_at_first(admin_api):
    assert admin_api.get(SSO).json()["data"] == {"sso": None}


def test_the_settings_are_answered_without_the_secret_which_is_encrypted(admin_api, admin):
    response = admin_api.put(SSO, body(), format="json")

    assert response.status_code == 200
    sso = response.json()["data"]["sso"]
    assert sso["allowed_domains"] == ["example.com", "example.org"]
    assert (sso["client_secret_set"], sso["default_role"]) == (True, "developer")
    assert CLIENT_SECRET not in response.content.decode()
    assert admin_api.get(SSO).json()["data"]["sso"] == sso
    stored = SsoConnection.objects.get(organization_id=admin.organization_id).client_secret
    assert CLIENT_SECRET not in stored
    assert secret_decrypt(stored, purpose=SSO_CLIENT_SECRET) == CLIENT_SECRET
    entry = Entry.objects.get(action="sso.update")
    assert entry.changes["client_secret"] == "***"


def test_a_put_without_the_secret_keeps_it(admin_api, admin):
    admin_api.put(SSO, body(), format="json")
    body_without = body(client_id="renamed")
    del body_without["client_secret"]

    response = admin_api.put(SSO, body_without, format="json")

    assert response.status_code == 200
    assert response.json()["data"]["sso"]["client_id"] == "renamed"
    stored = SsoConnection.objects.get(organization_id=admin.organization_id).client_secret
    assert secret_decrypt(stored, purpose=SSO_CLIENT_SECRET) == CLIENT_SECRET


def test_the_first_put_needs_a_secret(admin_api):
    without = body()
    del without["client_secret"]

    response = admin_api.put(SSO, without, format="json")

    assert response.status_code == 400
    assert "client_secret" in response.json()["error"]["details"]


def test_delete_switches_it_off(admin_api):
    admin_api.put(SSO, body(), format="json")

    assert admin_api.delete(SSO).status_code == 200
    assert admin_api.get(SSO).json()["data"] == {"sso": None}
    assert admin_api.delete(SSO).status_code == 200  # off already: nothing to do


@pytest.mark.parametrize(("change", "field"), [
    ({"issuer": "ftp://idp.example.com"}, "issuer"),
    ({"issuer": "http://idp.example.com"}, "issuer"),
    ({"issuer": "https://127.0.0.1"}, "issuer"),
    ({"allowed_domains": []}, "allowed_domains"),
    ({"allowed_domains": ["not a domain"]}, "allowed_domains"),
    ({"allowed_domains": "example.com"}, "allowed_domains"),
    ({"default_role": "admin"}, "default_role"),
    ({"enforce": "yes"}, "enforce"),
    ({"extra": 1}, "extra"),
])
def test_bad_settings_are_a_400_naming_the_field(admin_api, change, field):
    response = admin_api.put(SSO, body(**change), format="json")

    assert response.status_code == 400
    assert field in response.json()["error"]["details"]
    assert admin_api.get(SSO).json()["data"] == {"sso": None}


def test_a_domain_of_another_organization_is_a_conflict(admin_api):
    other = UserFactory(email="admin@elsewhere.org", role="admin")
    assert client_for(other).put(SSO, body(allowed_domains=["example.org"]),
                                 format="json").status_code == 200

    response = admin_api.put(SSO, body(), format="json")

    assert response.status_code == 409
    assert "example.org" in response.json()["error"]["details"]["allowed_domains"][0]


def test_only_admins_handle_it(admin):
    developer = UserFactory(email="dev@example.com", role="developer",
                            organization=admin.organization)

    assert client_for(developer).get(SSO).status_code == 403
    assert client_for(developer).put(SSO, body(), format="json").status_code == 403


def test_enforce_refuses_password_logins_of_its_domains(api, client, admin, admin_api):
    member = UserFactory(email="dev@example.com", role="developer",
                         organization=admin.organization)
    outsider = UserFactory(email="guest@example.com")  # another organization: not bound
    admin_api.put(SSO, body(enforce=True), format="json")

    refused = api.post("/api/v1/auth/login", {"email": member.email, "password": PASSWORD},
                       format="json")
    unknown = api.post("/api/v1/auth/login", {"email": "ghost@example.com", "password": "x"},
                       format="json")
    console = client.post("/console/login", {"email": member.email, "password": PASSWORD})

    assert refused.status_code == unknown.status_code == 403
    assert refused.json()["error"]["code"] == "FORBIDDEN"
    assert "Sign in with SSO" in refused.json()["error"]["message"]
    assert refused.json()["error"]["details"] == {"email": ["sso_required"]}
    assert console.status_code == 403 and "Sign in with SSO" in console.content.decode()
    assert client.session.get("_auth_user_id") is None
    assert api.post("/api/v1/auth/login", {"email": outsider.email, "password": PASSWORD},
                    format="json").status_code == 200


def test_without_enforce_passwords_still_work(api, admin, admin_api):
    admin_api.put(SSO, body(enforce=False), format="json")

    assert api.post("/api/v1/auth/login", {"email": admin.email, "password": PASSWORD},
                    format="json").status_code == 200


def test_a_loopback_issuer_is_accepted_where_private_destinations_are(admin, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True

    sso = configure(client_for(admin), issuer="http://127.0.0.1:9/")

    assert sso["issuer"] == "http://127.0.0.1:9/"
