"""console/shown_once.py across a change of code or of SECRET_KEY between the POST that keeps a
secret and the page that shows it: a secret sealed by the code before purposes is still shown,
and one that no longer decrypts is answered by the page's own words, never a 500."""

from __future__ import annotations

import logging

import pytest
from django.urls import reverse

from apps_registry.models import ApiKey
from console.shown_once import SLOT
from delivery.models import Webhook
from tests.legacy_secrets import FOREIGN_KEY, legacy_token

pytestmark = pytest.mark.django_db


def reseal(console, slot: str, token: str) -> None:
    session = console.session
    assert SLOT.format(slot) in session  # the POST kept the secret there
    session[SLOT.format(slot)] = token
    session.save()


def new_key(console, app):
    created = console.post(f"/console/apps/{app.id}/keys/new",
                           {"name": "Android SDK", "permissions": ["write"], "signing": "on"})
    assert created.status_code == 302
    return ApiKey.objects.get(), created["Location"]


def new_webhook(console, app):
    created = console.post(reverse("console:delivery-new", args=[app.id, "webhook"]),
                           {"url": "https://hooks.example/in", "events": ["install"]})
    assert created.status_code == 302
    return Webhook.objects.get(), created["Location"]


def test_a_secret_sealed_before_purposes_is_still_shown(console, app):
    key, location = new_key(console, app)
    reseal(console, f"key:{key.id}", legacy_token("ak_sealed_by_the_code_before"))
    reseal(console, f"key-signing:{key.id}", legacy_token("f" * 64))
    html = console.get(location).content.decode()
    assert 'value="ak_sealed_by_the_code_before" readonly' in html
    assert f'value="{"f" * 64}" readonly' in html


def test_a_key_sealed_under_another_secret_key_is_answered_as_not_available(
        console, app, caplog):
    key, location = new_key(console, app)
    reseal(console, f"key:{key.id}", legacy_token("ak_lost", key=FOREIGN_KEY))
    caplog.set_level(logging.WARNING, logger="console.shown_once")
    response = console.get(location)
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    html = response.content.decode()
    assert "This key was shown once and is not available again" in html
    assert "revoke it and create another" in html
    assert "ak_lost" not in html and 'id="signing-secret"' not in html
    assert f"key:{key.id}" in caplog.text and "cannot be decrypted" in caplog.text


def test_a_webhook_secret_sealed_under_another_secret_key_is_answered_as_not_available(
        console, app):
    webhook, location = new_webhook(console, app)
    reseal(console, f"webhook:{webhook.id}", legacy_token("whsec_lost", key=FOREIGN_KEY))
    response = console.get(location)
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    html = response.content.decode()
    assert "The signing secret was shown once and is not available again" in html
    assert "delete this webhook and create a new one" in html and "whsec_lost" not in html
