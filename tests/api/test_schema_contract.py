"""Every operation the published schema (/api/v1/schema/) lists, called with a valid request,
answers a documented status with a body the schema describes (docs/decisions.md, "The schema is
a contract").

`EXAMPLES` holds one valid request per operationId; an operation added without one fails
`test_every_operation_has_an_example`. The bodies are validated strictly: `$ref`s resolved,
OpenAPI 3.0's `nullable` read as "or null", and an object may not carry a property its schema
does not name, so an undocumented field fails as surely as a missing one.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import jsonschema
import pytest
from django.db import transaction
from django.utils import timezone
from rest_framework.test import APIClient

from tests.api import world as worlds
from tests.factories import AppFactory, UserFactory, issue_key
from tests.helpers import client_for
from tests.skan import apple_vectors as apple
from tracking.services import ClickInput, click_record

pytestmark = pytest.mark.django_db

SESSION = "0b9d2c3e-8f5e-4a4c-9a55-1f2b3c4d5e6f"
# The last days, where the world's facts are: a period reaching back far makes the rollups
# (refreshed on demand where no beat runs) cover every day since.
TODAY = datetime.now(UTC).date()
PERIOD = {"start_date": f"{TODAY - timedelta(days=7)}T00:00:00Z",
          "end_date": f"{TODAY + timedelta(days=1)}T00:00:00Z"}


@dataclass
class Example:
    """A valid request: who calls, the path's arguments (names of World attributes), the
    query and the body (callables take the World)."""

    caller: str = "owner"
    path: dict = field(default_factory=dict)
    query: object = None
    body: object = None


def app_query(**extra):
    return lambda w: {"app_id": str(w.app.id), **extra}


def period(**extra):
    return lambda w: {"app_id": str(w.app.id), **PERIOD, **extra}


APP = {"app_id": "app_id"}
DESTINATION = {"destination_id": "data_destination_id"}
EXAMPLES: dict[str, Example] = {
    # Authentication
    "auth_signup_create": Example("nobody", body={
        "email": "new@example.com", "password": "long enough secret", "name": "New Person",
        "company_name": "New Company"}),
    "auth_login_create": Example("nobody", body={"email": "owner@example.com",
                                                 "password": worlds.PASSWORD}),
    "auth_me_retrieve": Example(),
    # Members
    "org_members_list": Example(),
    "org_members_partial_update": Example(path={"member_id": "member_id"},
                                          body={"role": "marketer"}),
    "org_members_destroy": Example(path={"member_id": "member_id"}),
    # Invitations and personal access tokens (teams/)
    "org_invitations_list": Example(),
    "org_invitations_create": Example(body={"email": "newcomer@example.com",
                                            "role": "developer"}),
    "org_invitations_destroy": Example(path={"invitation_id": "invitation_id"}),
    "auth_invitations_accept": Example("nobody", body=lambda w: {
        "token": w.invitation_token, "name": "Invited Person",
        "password": "long enough secret"}),
    "auth_tokens_list": Example(),
    "auth_tokens_create": Example(body={"name": "ci", "expires_in_days": 30}),
    "auth_tokens_destroy": Example(path={"token_id": "access_token_id"}),
    # Apps, keys, ad networks
    "apps_list": Example(),
    "apps_create": Example(body={"name": "Shop for Android", "platform": "android",
                                 "package_name": "com.example.shop.android",
                                 "play_store_url": "https://play.google.com/store/apps/"
                                                   "details?id=com.example.shop.android"}),
    "apps_retrieve": Example(path=APP),
    "apps_update": Example(path=APP, body={"name": "Renamed"}),
    "apps_destroy": Example(path=APP),
    "apps_keys_retrieve": Example(path=APP),
    "apps_keys_create": Example(path=APP, body={"name": "backend", "permissions": ["read"]}),
    "keys_destroy": Example(path={"key_id": "key_id"}),
    "apps_banner_retrieve": Example(path={"app_id": "web_app_id"}),
    "apps_banner_update": Example(path={"app_id": "web_app_id"}, body={
        "title": "Shop in the app", "button": "Open", "platforms": ["ios"],
        "deep_link_value": "product/{path}"}),
    "apps_fraud_settings_retrieve": Example(path=APP),
    "apps_fraud_settings_update": Example(path=APP, body={"ctit_anomalies_mode": "flag",
                                                          "listed_networks": ["198.51.100.0/24"]}),
    "ad_networks_list": Example(path=APP),
    "ad_networks_set": Example(path={**APP, "network_id": "network_id"},
                               body={"name": "Renamed Network"}),
    "ad_networks_clear": Example(path={**APP, "network_id": "network_id"}),
    "skan_campaign_mappings_list": Example(path=APP),
    "skan_campaign_mappings_replace": Example(path=APP, body={"mappings": [
        {"media_source": "meta", "source_identifier": "1234", "campaign_id": "120"}]}),
    # SDK
    "clicks_redirect": Example("nobody", query=app_query(pid="network_a", c="summer")),
    "installs_create": Example("key", body=lambda w: {
        "app_id": str(w.app.id), "device_id": "IDFA-0002", "platform": "ios",
        "sdk_version": "1.0.0", "os_version": "17.4", "device_model": "iPhone15,2"}),
    "events_create": Example("key", body=lambda w: {
        "app_id": str(w.app.id), "device_id": worlds.IDFA, "sdk_version": "1.0.0",
        "events": [{"event_name": "level_up", "properties": {"level": 2},
                    "timestamp": int(time.time() * 1000) - 60_000,
                    "session_id": SESSION}]}),
    "consent_create": Example("key", body=lambda w: {
        "app_id": str(w.app.id), "device_id": worlds.IDFA, "consent_data": {"manual": {
            "gdpr_applies": True, "ad_user_data_enabled": False,
            "ad_personalization_enabled": False}}}),
    "conversion_schema_for_sdk": Example("key", path=APP),
    "conversion_value": Example("key", body=lambda w: {
        "app_id": str(w.app.id), "window": 0, "events": [{"event_name": "tutorial_complete",
                                             "timestamp": int(time.time() * 1000)}]}),
    "deeplinks_resolve": Example("key", body=lambda w: {
        "app_id": str(w.app.id), "url": f"https://links.example.com/l/{w.link_code}"}),
    "installs_list": Example(query=app_query()),
    "installs_retrieve": Example(path={"install_id": "install_id"}),
    # Apple's postbacks
    "skadnetwork_postback_receive": Example("nobody", body=apple.V4_FINE),
    "adattributionkit_postback_receive": Example("nobody", body=apple.AAK_BODY),
    # Conversion values
    "conversion_schemas_list": Example(path=APP),
    "conversion_schemas_create": Example(path=APP, body={"windows": [
        {"rules": [{"fine": 0, "coarse": "low"}]}, {"rules": [{"coarse": "low"}]},
        {"rules": [{"coarse": "medium"}]}]}),
    "conversion_schemas_retrieve": Example(path={**APP, "version": "schema_version"}),
    # Analytics
    "analytics_dashboard_retrieve": Example(query=period()),
    "analytics_sources_retrieve": Example(query=period()),
    "analytics_campaigns_retrieve": Example(query=period()),
    "analytics_retention_retrieve": Example(query=period()),
    "analytics_revenue_retrieve": Example(query=period()),
    "analytics_attribution_retrieve": Example(query=period(model="linear")),
    "analytics_export_retrieve": Example(query=period(type="installs")),
    "analytics_fraud_retrieve": Example(query=period()),
    "analytics_cost_retrieve": Example(query=period(group_by="campaign")),
    "analytics_skan": Example(query=period()),
    "analytics_web_to_app": Example(query=lambda w: {"app_id": w.web_app_id}),
    "costs_create": Example(body=lambda w: {"app_id": str(w.app.id), "rows": [
        {"date": str(TODAY - timedelta(days=2)), "media_source": "network_a",
         "campaign_id": "summer", "cost": "7.25", "currency": "USD"}]}),
    # Links
    "link_domains_list": Example(),
    "link_domains_create": Example(body={"host": "open.example.com"}),
    "link_domains_destroy": Example(path={"domain_id": "link_domain_id"}),
    "links_list": Example(query=app_query()),
    "links_create": Example(body=lambda w: {
        "app_id": str(w.app.id), "media_source": "network_b", "campaign_id": "autumn",
        "deep_link_value": "product/42", "params": {"color": "red"}}),
    "links_retrieve": Example(path={"link_id": "link_id"}),
    "links_update": Example(path={"link_id": "link_id"}, body={"name": "Summer sale"}),
    "links_destroy": Example(path={"link_id": "link_id"}),
    "links_qr_retrieve": Example(path={"link_id": "link_id"}),
    "links_report_retrieve": Example(path={"link_id": "link_id"}, query=lambda w: PERIOD),
    # Postbacks and webhooks
    "postbacks_list": Example(query=app_query()),
    "postbacks_create": Example(body=lambda w: {
        "app_id": str(w.app.id), "media_source": "network_b",
        "postback_url": "https://postbacks.invalid/b?id={install_id}", "http_method": "POST"}),
    "postbacks_retrieve": Example(path={"postback_id": "postback_id"}),
    "postbacks_update": Example(path={"postback_id": "postback_id"}, body={"active": False}),
    "postbacks_destroy": Example(path={"postback_id": "postback_id"}),
    "postbacks_test_create": Example(path={"postback_id": "postback_id"}),
    "postbacks_logs_retrieve": Example(query=app_query(limit=10)),
    "webhooks_list": Example(query=app_query()),
    "webhooks_create": Example(body=lambda w: {
        "app_id": str(w.app.id), "url": "https://hooks.invalid/second",
        "events": ["install"]}),
    "webhooks_retrieve": Example(path={"webhook_id": "webhook_id"}),
    "webhooks_update": Example(path={"webhook_id": "webhook_id"}, body={"events": ["event"]}),
    "webhooks_destroy": Example(path={"webhook_id": "webhook_id"}),
    "webhooks_test_create": Example(path={"webhook_id": "webhook_id"}),
    "webhooks_logs_retrieve": Example(query=app_query(limit=10)),
    # Integrations (Meta, Google Ads)
    "integrations_list": Example(path=APP),
    "integrations_meta_set": Example(path=APP, body={
        "meta_app_id": "1234567890", "install_referrer_decryption_key": "ab" * 32,
        "access_token": "EAAB0123456789abcdef",
        "event_mapping": {"purchase": "fb_mobile_purchase"}}),
    "integrations_meta_remove": Example(path=APP),
    "integrations_google_ads_set": Example(path=APP, body={
        "link_id": "A1B2C3D4E5F60718", "event_mapping": {"purchase": "in_app_purchase"}}),
    "integrations_google_ads_remove": Example(path=APP),
    # Ad spend: the cost part of the integrations, and its pulls (the world has TikTok's and
    # Apple Ads')
    "integrations_tiktok_set": Example(path=APP, body={"cost": {
        "advertiser_id": "7000000000001", "access_token": "tiktokAccessToken0123456789",
        "lookback_days": 14}}),
    "integrations_tiktok_remove": Example(path=APP),
    "integrations_apple_ads_set": Example(path=APP, body={"cost": worlds.APPLE_COST}),
    "integrations_apple_ads_remove": Example(path=APP),
    "integrations_cost_pulls_list": Example(path={**APP, "network": "cost_network"}),
    "integrations_cost_pulls_start": Example(path={**APP, "network": "cost_network"}),
    # Data-subject requests (OpenDSR)
    "privacy_requests_create": Example(body=lambda w: {
        "subject_request_id": "0f8e7d6c-5b4a-4398-8776-655443322110",
        "subject_request_type": "erasure", "submitted_time": "2026-01-02T03:04:05Z",
        "property_id": str(w.app.id), "status_callback_urls": ["https://dsr.invalid/cb"],
        "subject_identities": [{"identity_type": "ios_advertising_id", "identity_format": "raw",
                                "identity_value": worlds.IDFA}]}),
    "privacy_requests_list": Example(query=app_query()),
    "privacy_requests_retrieve": Example(path={"request_id": "privacy_request_id"}),
    "privacy_requests_cancel": Example(path={"request_id": "pending_request_id"}),
    "privacy_forget": Example("key", body=lambda w: {"app_id": str(w.app.id),
                                                     "device_id": worlds.IDFA}),
    "privacy_document_retrieve": Example("nobody", path={"token": "document_token"}),
    # Raw-data destinations
    "data_destinations_list": Example(),
    "data_destinations_create": Example(body=lambda w: {
        "name": "Lake", "kind": "s3", "bucket": "lake-bucket", "prefix": "raw",
        "endpoint_url": "https://lake.invalid", "access_key_id": "AKIALAKE00000000",
        "secret_access_key": "lake-secret", "format": "csv", "topics": ["installs"],
        "app_ids": [str(w.app.id)]}),
    "data_destinations_retrieve": Example(path=DESTINATION),
    "data_destinations_update": Example(path=DESTINATION, body=lambda w: {"format": "csv"}),
    "data_destinations_destroy": Example(path=DESTINATION),
    "data_destinations_test": Example(path=DESTINATION),
    "data_destinations_runs_list": Example(path=DESTINATION, query=lambda w: {"limit": 5}),
    "data_destinations_runs_create": Example(path=DESTINATION),
    # The audit log (the world's own changes are its entries)
    "audit_log_list": Example(query={"limit": 5}),
    # Single sign-on and two-factor (signin/)
    "org_sso_retrieve": Example(),
    "org_sso_update": Example(body={
        "issuer": "https://idp.example.com", "client_id": "console", "client_secret": "s3cret",
        "allowed_domains": ["example.com"], "default_role": "viewer", "enforce": False}),
    "org_sso_destroy": Example(),
    "org_two_factor_retrieve": Example(),
    "org_two_factor_update": Example(body={"required": True}),
    "auth_otp_retrieve": Example(),
    "auth_otp_enrol": Example(),
    "auth_otp_confirm": Example(body=lambda w: {"otp": w.otp_code()}),
    "auth_otp_destroy": Example("member", body={"password": worlds.PASSWORD}),
}


@pytest.fixture
def world(settings):
    settings.DASHBOARD_RATE_LIMIT = "1000000/m"
    built = worlds.build()
    # One delivery attempt of each kind, so the log endpoints have an entry to describe.
    for kind, config_id in (("postbacks", built.postback_id), ("webhooks", built.webhook_id)):
        sent = built.owner_api.post(f"/api/v1/{kind}/{config_id}/test")
        assert sent.status_code == 200, sent.content
    return built


@pytest.fixture
def published(api):
    response = api.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return json.loads(response.content)


def operations(schema):
    for route, item in schema["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "operationId" in operation:
                yield operation["operationId"], method.upper(), route, operation


def test_every_operation_has_an_example(published):
    documented = {operation_id for operation_id, *_ in operations(published)}
    assert sorted(documented - set(EXAMPLES)) == []  # a new operation needs an example here
    assert sorted(set(EXAMPLES) - documented) == []  # an example of an operation that left


def test_every_operation_answers_a_valid_request_as_its_schema_says(published, world):
    components = published["components"]["schemas"]
    problems = []
    for operation_id, method, route, operation in operations(published):
        example = EXAMPLES[operation_id]
        response = call(world, example, method, route)
        problems += [f"{operation_id}: {problem}"
                     for problem in contract_problems(operation, response, components)]
    assert not problems, "\n".join(problems)


def test_a_repeat_install_that_reengages_answers_as_its_schema_says(published, world):
    """The install answer's other shape: a repeat (200) carrying a re-engagement through a
    link, whose deep link is an object."""
    from links.models import Link

    link = Link.objects.get(id=world.link_id)
    Link.objects.filter(id=link.id).update(deep_link_value="cart", params={"reminder": "1"})
    click_record(click=ClickInput(
        app_id=world.app.id, campaign_id="winback", media_source="email", adset="", ad="",
        advertising_id=worlds.IDFA, ip="203.0.113.7", user_agent="Mozilla/5.0 (iPhone)",
        accept_language="en", clicked_at=timezone.now(), link_id=link.id))
    operation = published["paths"]["/api/v1/installs"]["post"]
    response = call(world, EXAMPLES["installs_create"], "POST", "/api/v1/installs", body={
        "app_id": str(world.app.id), "device_id": worlds.IDFA, "platform": "ios",
        "sdk_version": "1.0.0"})
    assert response.status_code == 200
    assert response.json()["data"]["reengagement"]["deepLink"] == {
        "value": "cart", "params": {"reminder": "1"}, "link_id": world.link_id}
    assert contract_problems(operation, response, published["components"]["schemas"]) == []


def call(world, example: Example, method: str, route: str, body=None, client=None,
         path_values=None):
    """The example's request, in a savepoint rolled back after it: no example sees another's
    writes (a DELETE leaves the object for the next). `client` and `path_values` stand in for
    the example's caller and path arguments."""
    path = route
    for name, attribute in example.path.items():
        value = (path_values or {}).get(name) or getattr(world, attribute)
        path = path.replace("{" + name + "}", str(value))
    query = example.query(world) if callable(example.query) else example.query
    if body is None:
        body = example.body(world) if callable(example.body) else example.body
    client = client or {"owner": world.owner_api, "key": world.sdk_api,
                        "member": world.member_api,
                        "nobody": APIClient()}[example.caller]
    with transaction.atomic():
        if method == "GET":
            response = client.get(path, query)
        else:
            target = path + ("?" + "&".join(f"{k}={v}" for k, v in query.items())
                             if query else "")
            response = client.generic(method, target, json.dumps(body) if body is not None
                                      else "", content_type="application/json")
        transaction.set_rollback(True)
    return response


MISSING_IDS = {"version": "987654", "key_id": "0000000000000000", "network_id": "missing"}


@pytest.fixture
def strangers(world):
    """Callers the examples' objects are not for: nobody, another organization's owner, and
    the key of another app of the same organization."""
    outsider = UserFactory(email="outsider@example.org")
    other_app = AppFactory(organization=world.owner.organization)
    other_key = APIClient()
    other_key.credentials(HTTP_X_API_KEY=issue_key(other_app, permissions=["read", "write"]))
    return {"nobody": APIClient(), "outsider": client_for(outsider), "other_app_key": other_key}


# The refusals the spec names (spec: Endpoints), each with the status it gives.
SPEC_REFUSALS = [
    ("auth_signup_create", 409, Example("nobody", body={
        "email": "owner@example.com", "password": "long enough secret", "name": "Again",
        "company_name": "Again"})),
    ("auth_login_create", 401, Example("nobody", body={"email": "owner@example.com",
                                                        "password": "wrong password"})),
    ("auth_me_retrieve", 401, Example("nobody")),
    ("apps_create", 409, Example(body={"name": "Twin", "platform": "ios",
                                       "bundle_id": "com.example.shop"})),
    ("apps_retrieve", 404, Example(path={"app_id": "postback_id"})),
    ("installs_create", 401, Example("nobody", body=lambda w: {
        "app_id": str(w.app.id), "platform": "ios", "sdk_version": "1.0.0"})),
    ("installs_create", 400, Example("key", body=lambda w: {"app_id": str(w.app.id)})),
    ("postbacks_create", 409, Example(body=lambda w: {
        "app_id": str(w.app.id), "media_source": "network_a",
        "postback_url": "https://postbacks.invalid/again"})),
    ("link_domains_create", 409, Example(body={"host": "go.example.com"})),
]


def test_every_refusal_the_spec_names_is_given_and_documented(published, world):
    by_id = {operation_id: (method, route, operation)
             for operation_id, method, route, operation in operations(published)}
    problems = []
    for operation_id, status, example in SPEC_REFUSALS:
        method, route, operation = by_id[operation_id]
        response = call(world, example, method, route)
        if response.status_code != status:
            problems.append(f"{operation_id}: {response.status_code} instead of {status}")
        problems += [f"{operation_id}: {problem}" for problem in contract_problems(
            operation, response, published["components"]["schemas"], refusal=True)]
    assert not problems, "\n".join(problems)


def test_every_refusal_a_caller_can_meet_is_documented(published, world, strangers):
    """The same requests from callers they are not for, and with ids that exist nowhere: each
    answer's status is documented and its body is the documented error envelope."""
    components = published["components"]["schemas"]
    problems = []
    for operation_id, method, route, operation in operations(published):
        example = EXAMPLES[operation_id]
        variants = {name: {"client": client} for name, client in strangers.items()
                    if (name == "other_app_key") == (example.caller == "key")
                    and example.caller != "nobody"}
        if example.path:
            variants["missing ids"] = {"path_values": {
                name: MISSING_IDS.get(name, str(uuid.UUID(int=1))) for name in example.path}}
        for variant, overrides in variants.items():
            response = call(world, example, method, route, **overrides)
            problems += [f"{operation_id} ({variant}): {problem}" for problem in
                         contract_problems(operation, response, components, refusal=True)]
    assert not problems, "\n".join(problems)


def contract_problems(operation: dict, response, components: dict, *,
                      refusal: bool = False) -> list[str]:
    """What in `response` the operation's documentation does not say. A valid request must
    succeed; a `refusal` must not be a server error (a caller the request is not for may be
    served its own empty list, a 2xx)."""
    status = str(response.status_code)
    if not refusal and not status.startswith(("2", "3")):
        return [f"a valid request answered {status}: {response.content[:300]!r}"]
    if refusal and not status.startswith(("2", "4")):  # a stranger may be served its own
        return [f"answered {status}: {response.content[:300]!r}"]
    documented = operation["responses"].get(status)
    if documented is None:
        return [f"status {status} is not documented ({sorted(operation['responses'])})"]
    content_type = response.get("Content-Type", "").split(";")[0]
    content = documented.get("content", {})
    if not content:
        return [] if not response.content or status.startswith("3") else [
            f"{status} has a body the schema does not describe"]
    if content_type not in content:
        return [f"{status} answered {content_type}, documented {sorted(content)}"]
    if content_type != "application/json":
        return []
    schema = json_schema(content[content_type].get("schema", {}), components)
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    return [f"{status} at {'/'.join(map(str, error.absolute_path)) or 'the body'}: "
            f"{error.message[:300]}"
            for error in validator.iter_errors(response.json())]


def json_schema(node, components: dict, depth: int = 0):
    """An OpenAPI 3.0 schema as plain JSON Schema: `$ref`s inlined, `nullable` as "or null",
    and objects closed to properties they do not name."""
    assert depth < 40, "a recursive schema: resolve it lazily"
    if isinstance(node, list):
        return [json_schema(item, components, depth + 1) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return json_schema(components[node["$ref"].rsplit("/", 1)[1]], components, depth + 1)
    converted = {}
    for key, value in node.items():
        if key == "properties":
            converted[key] = {name: json_schema(sub, components, depth + 1)
                              for name, sub in value.items()}
        elif key in ("nullable", "readOnly", "writeOnly", "example", "discriminator"):
            continue
        else:
            converted[key] = json_schema(value, components, depth + 1)
    if "properties" in converted and "additionalProperties" not in converted:
        converted["additionalProperties"] = False
    if node.get("nullable"):
        if "enum" in converted:
            converted["enum"] = [*converted["enum"], None]
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


def test_the_contract_check_catches_an_undocumented_field_and_a_wrong_type():
    operation = {"responses": {"200": {"content": {"application/json": {"schema": {
        "type": "object", "properties": {"n": {"type": "integer", "nullable": True}}}}}}}}

    class Answer:
        status_code = 200
        content = b"{}"

        def __init__(self, body):
            self.body = body

        def get(self, name, default=""):
            return "application/json"

        def json(self):
            return self.body

    assert contract_problems(operation, Answer({"n": None}), {}) == []
    assert contract_problems(operation, Answer({"n": 1}), {}) == []
    assert len(contract_problems(operation, Answer({"n": "1"}), {})) == 1
    assert len(contract_problems(operation, Answer({"n": 1, "extra": 2}), {})) == 1

