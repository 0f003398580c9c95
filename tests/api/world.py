"""One organization with one of everything, made through the API as a customer would make it:
the route walk and the schema contract test read their path arguments and bodies from it."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import date, timedelta

import pyotp
from django.utils import timezone
from rest_framework.test import APIClient

from signin import two_factor
from tests.conversion.samples import SCHEMA
from tests.factories import AppFactory, UserFactory, issue_key
from tests.helpers import client_for
from tests.skan import apple_vectors as apple

PASSWORD = "correct horse battery"
IDFA = "6d2e9f4a-1b3c-4d5e-8f70-a1b2c3d4e5f6"  # the world's one device


@dataclass
class World:
    owner: object
    app: object
    full_key: str
    key_id: str
    owner_api: APIClient
    sdk_api: APIClient
    link_domain_id: str
    link_id: str
    link_code: str
    postback_id: str
    webhook_id: str
    install_id: str
    schema_version: int
    network_id: str
    privacy_request_id: str
    pending_request_id: str
    document_token: str
    data_destination_id: str
    web_app_id: str = ""  # a web app linked to `app`, with a banner (web_to_app)
    cost_network: str = "tiktok"  # `app` has a TikTok cost connection (networks/spend)
    member_id: str = ""  # a viewer of the owner's organization (accounts/members.py)
    invitation_id: str = ""  # a pending invitation of a marketer (teams/invitations.py)
    invitation_token: str = ""  # its token, as its accept URL carries it
    access_token_id: str = ""  # the owner's personal access token (teams/access_tokens.py)
    member_api: APIClient | None = None  # the viewer's, who has two-factor on (signin/)
    otp_secret: str = ""  # the owner's two-factor enrolment, waiting for its first code

    @property
    def app_id(self) -> str:
        return str(self.app.id)

    def otp_code(self) -> str:
        """A current code of the owner's pending two-factor enrolment."""
        return pyotp.TOTP(self.otp_secret).now()


# An Apple Ads cost part as the API checks it (the key's text is only shaped like a PEM: the
# world never pulls).
APPLE_COST = {"org_id": "40669820", "client_id": "SEARCHADS.27478e71-3bb0-4588",
              "team_id": "SEARCHADS.27478e71-3bb0-4588", "key_id": "bacaebda-e219",
              "private_key": "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n"
                             "-----END EC PRIVATE KEY-----\n"}


def build() -> World:
    owner = UserFactory(email="owner@example.com", is_staff=True, is_superuser=True)
    app = AppFactory(organization=owner.organization, platform="ios", package_name=None,
                     bundle_id="com.example.shop", apple_app_id=str(apple.APP_STORE_ID),
                     apple_team_id="ABCDE12345")
    full_key = issue_key(app, name="everything", permissions=["read", "write", "admin"])
    owner_api = client_for(owner)
    sdk_api = APIClient()
    sdk_api.credentials(HTTP_X_API_KEY=full_key)

    def made(response, status=201):
        assert response.status_code == status, response.content
        return response.json()["data"]

    domain = made(owner_api.post("/api/v1/link-domains", {"host": "go.example.com"},
                                 format="json"))["link_domain"]
    link = made(owner_api.post("/api/v1/links", {
        "app_id": str(app.id), "media_source": "network_a", "campaign_id": "summer",
        "code": "summer-sale", "name": "Summer"}, format="json"))["link"]
    # Receivers under .invalid (RFC 6761): a test send fails at once, on no one's server.
    postback = made(owner_api.post("/api/v1/postbacks", {
        "app_id": str(app.id), "media_source": "network_a",
        "postback_url": "https://postbacks.invalid/p?install={install_id}"}, format="json"))
    webhook = made(owner_api.post("/api/v1/webhooks", {
        "app_id": str(app.id), "url": "https://hooks.invalid/in",
        "events": ["install", "event"]}, format="json"))
    schema = made(owner_api.post(f"/api/v1/apps/{app.id}/conversion-schemas", SCHEMA,
                                 format="json"))["schema"]
    made(owner_api.put(f"/api/v1/apps/{app.id}/ad-networks/com.example",
                       {"name": "Example Network"}, format="json"), 200)
    made(owner_api.put(f"/api/v1/apps/{app.id}/integrations/meta", {
        "meta_app_id": "1234567890", "install_referrer_decryption_key": "cd" * 32},
        format="json"), 200)
    made(owner_api.put(f"/api/v1/apps/{app.id}/integrations/google_ads",
                       {"link_id": "F1E2D3C4B5A69788"}, format="json"), 200)
    made(owner_api.put(f"/api/v1/apps/{app.id}/integrations/tiktok", {"cost": {
        "advertiser_id": "7000000000001", "access_token": "tiktokAccessToken0123456789"}},
        format="json"), 200)
    made(owner_api.put(f"/api/v1/apps/{app.id}/integrations/apple_ads",
                       {"cost": APPLE_COST}, format="json"), 200)
    made(owner_api.post("/api/v1/costs", {"app_id": str(app.id), "rows": [
        {"date": str(date.today() - timedelta(days=1)), "media_source": "network_a",
         "campaign_id": "summer", "cost": "12.50", "currency": "USD"}]}, format="json"), 200)
    click = APIClient().get("/api/v1/clicks", {
        "app_id": str(app.id), "pid": "network_a", "c": "summer",
        "advertising_id": IDFA}, HTTP_USER_AGENT="Mozilla/5.0 (iPhone)")
    assert click.status_code == 302
    install = made(sdk_api.post("/api/v1/installs", {
        "app_id": str(app.id), "device_id": IDFA, "platform": "ios",
        "sdk_version": "1.0.0"}, format="json"))
    made(sdk_api.post("/api/v1/events", {
        "app_id": str(app.id), "device_id": IDFA, "sdk_version": "1.0.0",
        "events": [{"event_name": "purchase", "properties": {"amount": 4.99, "currency": "USD"},
                    "timestamp": int(time.time() * 1000) - 60_000,
                    "session_id": "0b9d2c3e-8f5e-4a4c-9a55-1f2b3c4d5e6f"}]},
        format="json"), 200)
    access = made(owner_api.post("/api/v1/privacy/requests", {
        "subject_request_id": "5b0c7a4e-3f1d-4c2b-9a8e-7d6f5e4c3b2a",
        "subject_request_type": "access", "submitted_time": "2026-01-02T03:04:05Z",
        "property_id": str(app.id), "subject_identities": [{
            "identity_type": "ios_advertising_id", "identity_format": "raw",
            "identity_value": IDFA}]}, format="json"))
    pending = made(owner_api.post("/api/v1/privacy/requests", {
        "subject_request_id": "6c1d8b5f-4a2e-4d3c-8b9f-8e7a6f5d4c3b",
        "subject_request_type": "erasure", "submitted_time": "2026-01-02T03:04:05Z",
        "property_id": str(app.id), "subject_identities": [{
            "identity_type": "customer_user_id", "identity_format": "raw",
            "identity_value": "someone-else"}]}, format="json"))
    # A bucket under .invalid too: the test endpoint's probe fails at once.
    destination = made(owner_api.post("/api/v1/data-destinations", {
        "name": "Warehouse", "kind": "s3", "bucket": "world-bucket",
        "endpoint_url": "https://s3.invalid", "access_key_id": "AKIAWORLD0000000",
        "secret_access_key": "world-secret"}, format="json"))["destination"]
    from privacy import links, services
    from tracking.models import Install

    services.request_run(request_id=access["subject_request_id"])
    web_app = made(owner_api.post("/api/v1/apps", {"name": "Shop web", "platform": "web",
                                                   "domain": "shop.example"}, format="json"))
    web_app_id = web_app["app"]["id"]
    made(owner_api.put(f"/api/v1/apps/{web_app_id}", {"linked_apps": [str(app.id)]},
                       format="json"), status=200)
    made(owner_api.put(f"/api/v1/apps/{web_app_id}/banner", {
        "title": "Shop in the app", "button": "Open", "platforms": ["ios"]}, format="json"),
        status=200)
    member = UserFactory(email="colleague@example.com", role="viewer",
                         organization=owner.organization)
    invitation = made(owner_api.post("/api/v1/org/invitations", {
        "email": "invited@example.com", "role": "marketer"}, format="json"))
    access_token = made(owner_api.post("/api/v1/auth/tokens", {"name": "world script"},
                                       format="json"))["access_token"]
    member_api = client_for(member)
    enrolment = two_factor.totp_enrol(user=member)
    two_factor.totp_confirm(user=member, otp=pyotp.TOTP(enrolment.secret).now(),
                            now=timezone.now())
    otp_secret = made(owner_api.post("/api/v1/auth/otp/enrol"), 200)["secret"]
    return World(
        owner=owner, app=app, full_key=full_key, key_id=full_key.split("_")[1],
        owner_api=owner_api, sdk_api=sdk_api, link_domain_id=domain["id"], link_id=link["id"],
        link_code=link["code"], postback_id=postback["postback"]["id"],
        webhook_id=webhook["webhook"]["id"],
        install_id=str(Install.objects.get(app=app).id) if install else "",
        schema_version=schema["version"], network_id="com.example",
        privacy_request_id=access["subject_request_id"],
        pending_request_id=pending["subject_request_id"],
        document_token=links.document_token(access["subject_request_id"]),
        data_destination_id=destination["id"], web_app_id=web_app_id,
        member_id=str(member.id), invitation_id=invitation["invitation"]["id"],
        invitation_token=invitation["accept_url"].split("token=", 1)[1],
        access_token_id=access_token["id"], member_api=member_api, otp_secret=otp_secret)
