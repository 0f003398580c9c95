"""An install Google's claim moved, on the console's install page: Google's ids and names under
Google's own labels, as text."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.console.helpers import XSS_CAMPAIGN, assert_shown_as_text
from tracking.models import Install

pytestmark = pytest.mark.django_db


def test_a_google_claimed_install_shows_googles_campaign_under_googles_labels(console, app):
    install = Install.objects.create(
        app=app, platform="android", sdk_version="3.1.0", installed_at=timezone.now(),
        match_type="google_ads", confidence=100.0, is_organic=False, media_source="google",
        campaign_id="123456789", adset="987654321", decision={}, platform_metadata={
            "platform": "google", "origin": "google_ads_api", "touch": "click",
            "campaign": {"campaign_id": "123456789", "campaign_name": XSS_CAMPAIGN,
                         "ad_group_id": "987654321", "network_type": "Search"}})

    body = console.get(reverse("console:install-detail", args=[app.id, install.id])
                       ).content.decode()

    assert "Google&#x27;s App Conversion API" in body or "Google's App Conversion API" in body
    assert "Ad group id" in body and "Network" in body and "Search" in body
    assert "Ad set id (Meta" not in body  # Meta's labels are Meta's alone
    assert_shown_as_text(body)
