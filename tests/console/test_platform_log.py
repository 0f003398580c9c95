"""The console's log of the conversions sent to Google Ads and Meta (docs/networks.md, "Sending
conversions"): the API's postback log under `platform`, each attempt with the platform's answer
as text."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse
from django.utils import timezone

from delivery.models import Delivery, DeliveryAttempt, State
from tests.console.helpers import XSS_CAMPAIGN, assert_shown_as_text
from tests.factories import AppFactory, OrganizationFactory

pytestmark = pytest.mark.django_db
HOSTILE = XSS_CAMPAIGN


def meta_delivery(app, *, body: str) -> Delivery:
    now = timezone.now()
    delivery = Delivery.objects.create(
        id=uuid.uuid4(), app=app, kind="meta", event_type="install", source_id=str(uuid.uuid4()),
        body="{}", state=State.FAILED, max_attempts=4, attempts_made=1, created_at=now,
        updated_at=now, completed_at=now)
    DeliveryAttempt.objects.create(
        delivery=delivery, app=app, kind="meta", number=1, http_method="POST",
        url="https://graph.facebook.com/v21.0/42/activities", status_code=400,
        response_body=body, error_message="Receiver answered 400.", succeeded=False,
        started_at=now, finished_at=now)
    return delivery


def test_the_meta_log_lists_its_attempts_with_the_answer_as_text(console, app):
    meta_delivery(app, body=HOSTILE)
    response = console.get(reverse("console:platform-log", args=[app.id, "meta"]))
    assert response.status_code == 200
    body = response.content.decode()
    assert "Conversions sent to Meta" in body
    assert "https://graph.facebook.com/v21.0/42/activities" in body
    assert_shown_as_text(body)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    google = console.get(reverse("console:platform-log", args=[app.id, "google_ads"]))
    assert "Nothing sent to Google Ads yet." in google.content.decode()


def test_the_deliveries_page_links_both_platform_logs(console, app):
    body = console.get(reverse("console:deliveries", args=[app.id])).content.decode()
    for platform in ("google_ads", "meta"):
        assert reverse("console:platform-log", args=[app.id, platform]) in body


def test_an_unknown_platform_or_another_organizations_app_is_not_found(console, app):
    assert console.get(reverse("console:platform-log", args=[app.id, "tiktok"])
                       ).status_code == 404
    other = AppFactory(organization=OrganizationFactory())
    meta_delivery(other, body="theirs")
    assert console.get(reverse("console:platform-log", args=[other.id, "meta"])
                       ).status_code == 404
