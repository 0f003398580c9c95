"""Association files: apple-app-site-association and assetlinks.json on the service's host and
on every link domain, generated from app settings and checked against schemas written from
Apple's ("applinks.Details", "applinks.Details.Components") and Google's ("Statement List
Syntax") published formats."""

import pytest
from jsonschema import Draft202012Validator

from links import association
from links.models import LinkDomain
from tests.factories import AppFactory

TEAM = "ABCDE12345"
PRINT = ":".join(["AB"] * 32)

# Apple: applinks.details is a list of {appID | appIDs, components}; an app id is
# <team id (10 characters)>.<bundle id>; a component matches "/" (path), "?" (query) or "#"
# (fragment) patterns, optionally "exclude" and "comment".
AASA_SCHEMA = {
    "type": "object",
    "required": ["applinks"],
    "properties": {"applinks": {
        "type": "object",
        "required": ["details"],
        "properties": {"details": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "appID": {"$ref": "#/$defs/app_id"},
                "appIDs": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/app_id"}},
                "components": {"type": "array", "minItems": 1, "items": {
                    "type": "object",
                    "properties": {
                        "/": {"type": "string", "pattern": "^/"},
                        "?": {"type": ["string", "object"]},
                        "#": {"type": "string"},
                        "exclude": {"type": "boolean"},
                        "comment": {"type": "string"},
                        "caseSensitive": {"type": "boolean"},
                        "percentEncoded": {"type": "boolean"},
                    },
                    "additionalProperties": False,
                }},
            },
            "oneOf": [{"required": ["appID", "components"]},
                      {"required": ["appIDs", "components"]}],
            "additionalProperties": False,
        }}},
    }},
    "$defs": {"app_id": {"type": "string", "pattern": r"^[A-Z0-9]{10}\.[A-Za-z0-9.\-]+$"}},
}

# Google: a list of statements {relation: [strings], target}; an Android app target names its
# namespace, package name and upper-case SHA-256 certificate fingerprints.
ASSETLINKS_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["relation", "target"],
        "properties": {
            "relation": {"type": "array", "minItems": 1, "items": {
                "enum": ["delegate_permission/common.handle_all_urls",
                         "delegate_permission/common.get_login_creds"]}},
            "target": {
                "type": "object",
                "required": ["namespace", "package_name", "sha256_cert_fingerprints"],
                "properties": {
                    "namespace": {"const": "android_app"},
                    "package_name": {
                        "type": "string",
                        "pattern": r"^([A-Za-z][A-Za-z0-9_]*\.)+[A-Za-z][A-Za-z0-9_]*$"},
                    "sha256_cert_fingerprints": {
                        "type": "array", "minItems": 1, "uniqueItems": True,
                        "items": {"type": "string",
                                  "pattern": r"^[0-9A-F]{2}(:[0-9A-F]{2}){31}$"}},
                },
                "additionalProperties": False,
            },
        },
        "additionalProperties": False,
    },
}


def valid(document, schema) -> bool:
    errors = list(Draft202012Validator(schema).iter_errors(document))
    assert not errors, errors
    return True


def ios(bundle="com.example.ios", team=TEAM):
    return association.AppIdentity(platform="ios", bundle_id=bundle, apple_team_id=team,
                                   package_name=None, android_sha256_fingerprints=())


def android(package="com.example.android", prints=(PRINT,)):
    return association.AppIdentity(platform="android", bundle_id=None, apple_team_id=None,
                                   package_name=package, android_sha256_fingerprints=prints)


# --- Pure ---------------------------------------------------------------------------------

def test_the_schemas_refuse_what_apple_and_google_would():
    assert not Draft202012Validator(AASA_SCHEMA).is_valid(
        {"applinks": {"details": [{"appIDs": ["com.example"], "components": [{"/": "/l/*"}]}]}})
    assert not Draft202012Validator(ASSETLINKS_SCHEMA).is_valid(
        [{"relation": ["delegate_permission/common.handle_all_urls"],
          "target": {"namespace": "android_app", "package_name": "com.x",
                     "sha256_cert_fingerprints": ["ab:cd"]}}])


def test_aasa_names_every_ios_app_with_a_team_id_for_the_link_paths():
    document = association.apple_app_site_association(
        [ios("com.b"), ios("com.a"), ios("com.none", team=None), android()],
        custom_domain=False)
    assert valid(document, AASA_SCHEMA)
    assert document["applinks"]["details"] == [{
        "appIDs": [f"{TEAM}.com.a", f"{TEAM}.com.b"],
        "components": [{"/": "/l/*", "comment": "every link of this service's host"}]}]


def test_on_a_link_domain_every_path_but_well_known_is_claimed():
    document = association.apple_app_site_association([ios()], custom_domain=True)
    assert valid(document, AASA_SCHEMA)
    components = document["applinks"]["details"][0]["components"]
    assert [(c["/"], c.get("exclude", False)) for c in components] == [
        ("/.well-known/*", True), ("/*", False)]


def test_without_ios_apps_the_aasa_has_no_details():
    document = association.apple_app_site_association([android()], custom_domain=False)
    assert document == {"applinks": {"details": []}}
    assert valid(document, AASA_SCHEMA)


def test_assetlinks_has_one_statement_per_android_app_with_fingerprints():
    statements = association.asset_links(
        [android("com.b"), android("com.a", prints=(PRINT.lower(), "ab" * 32)),
         android("com.none", prints=()), ios()])
    assert valid(statements, ASSETLINKS_SCHEMA)
    assert statements == [
        {"relation": ["delegate_permission/common.handle_all_urls"],
         "target": {"namespace": "android_app", "package_name": "com.a",
                    "sha256_cert_fingerprints": [PRINT]}},
        {"relation": ["delegate_permission/common.handle_all_urls"],
         "target": {"namespace": "android_app", "package_name": "com.b",
                    "sha256_cert_fingerprints": [PRINT]}}]


def test_without_android_apps_assetlinks_is_an_empty_list():
    assert association.asset_links([ios()]) == []
    assert valid([], ASSETLINKS_SCHEMA)


# --- Served -------------------------------------------------------------------------------

@pytest.fixture
def apps(db, owner):
    org = owner.organization
    return {
        "ios": AppFactory(organization=org, platform="ios", package_name=None,
                          bundle_id="com.example.ours", apple_team_id=TEAM),
        "android": AppFactory(organization=org, package_name="com.example.ours",
                              android_sha256_fingerprints=[PRINT]),
        "stranger": AppFactory(package_name="com.example.theirs",
                               android_sha256_fingerprints=[PRINT]),
    }


def fetch(client, path, host=None):
    extra = {"HTTP_HOST": host} if host else {}
    response = client.get(path, **extra)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "Location" not in response
    return response.json()


def test_the_services_host_serves_every_apps_files(client, apps):
    aasa = fetch(client, "/.well-known/apple-app-site-association")
    assert valid(aasa, AASA_SCHEMA)
    assert aasa["applinks"]["details"][0]["appIDs"] == [f"{TEAM}.com.example.ours"]
    assert aasa["applinks"]["details"][0]["components"][0]["/"] == "/l/*"
    statements = fetch(client, "/.well-known/assetlinks.json")
    assert valid(statements, ASSETLINKS_SCHEMA)
    assert [s["target"]["package_name"] for s in statements] == [
        "com.example.ours", "com.example.theirs"]


def test_a_link_domain_serves_only_its_organizations_apps(client, apps, owner):
    LinkDomain.objects.create(organization=owner.organization, host="go.example.com")
    aasa = fetch(client, "/.well-known/apple-app-site-association", host="go.example.com")
    assert valid(aasa, AASA_SCHEMA)
    assert aasa["applinks"]["details"][0]["components"][-1]["/"] == "/*"
    statements = fetch(client, "/.well-known/assetlinks.json", host="go.example.com")
    assert valid(statements, ASSETLINKS_SCHEMA)
    assert [s["target"]["package_name"] for s in statements] == ["com.example.ours"]


def test_a_link_domain_without_apps_serves_empty_valid_files(client, db):
    LinkDomain.objects.create(organization=AppFactory().organization, host="go.example.com")
    assert fetch(client, "/.well-known/apple-app-site-association",
                 host="go.example.com") == {"applinks": {"details": []}}
    assert fetch(client, "/.well-known/assetlinks.json", host="go.example.com") == []
