"""A postback or webhook switched off, on or deleted by an operator in the Django admin (logged
in through the login form, real form posts that commit) is what the very next install
delivers to, as after the API's edits: the delivery targets each process keeps follow every
write of a configuration (docs/decisions.md, "Cache invalidation follows the model").
"""

from __future__ import annotations

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from delivery.models import Delivery, Kind, PostbackConfig, Webhook
from tests.admin_browser import operator_logged_in
from tests.delivery.helpers import make_postback, make_webhook
from tests.tracking.helpers import click_through, install_body

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def operator(db):
    return operator_logged_in()


@pytest.fixture
def sdk(request, sdk_key):
    if settings.REDIS_URL:  # each process keeps the targets it reads, as in production
        request.getfixturevalue("live_local_caches")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=sdk_key)
    return client


@pytest.fixture
def postback(app, receiver):
    return make_postback(app, receiver.url("/pb"), media_source="network_a")


@pytest.fixture
def webhook(app, receiver):
    return make_webhook(app, receiver.url("/hook"))[0]


_devices = iter(range(1_000_000))


def attributed_install(api, sdk, app) -> None:
    """A click from network_a, then the install it brings: one postback and one webhook due."""
    device = f"gaid-{next(_devices)}"
    click_through(api, app, pid="network_a", advertising_id=device)
    response = sdk.post("/api/v1/installs", install_body(app, device_id=device), format="json")
    assert response.status_code == 201
    assert response.json()["data"]["mediaSource"] == "network_a"


def deliveries(kind: str) -> int:
    return Delivery.objects.filter(kind=kind).count()


def test_a_postback_switched_off_then_on_in_the_admin_applies_from_the_next_install(
        operator, api, sdk, app, postback):
    page = f"/admin/delivery/postbackconfig/{postback.pk}/change/"
    attributed_install(api, sdk, app)  # the targets are now cached
    assert deliveries(Kind.POSTBACK) == 1
    operator.change(page, active=None)
    attributed_install(api, sdk, app)
    assert deliveries(Kind.POSTBACK) == 1
    assert PostbackConfig.objects.get().active is False
    operator.change(page, active="on")
    attributed_install(api, sdk, app)
    assert deliveries(Kind.POSTBACK) == 2


def test_a_webhook_switched_off_in_the_admin_gets_nothing_from_the_next_install(
        operator, api, sdk, app, postback, webhook):
    attributed_install(api, sdk, app)
    assert (deliveries(Kind.WEBHOOK), deliveries(Kind.POSTBACK)) == (1, 1)
    operator.change(f"/admin/delivery/webhook/{webhook.pk}/change/", active=None)
    attributed_install(api, sdk, app)
    assert (deliveries(Kind.WEBHOOK), deliveries(Kind.POSTBACK)) == (1, 2)


def test_a_webhook_deleted_on_its_delete_page_gets_nothing_from_the_next_install(
        operator, api, sdk, app, webhook):
    attributed_install(api, sdk, app)
    assert deliveries(Kind.WEBHOOK) == 1
    operator.delete(f"/admin/delivery/webhook/{webhook.pk}/delete/")
    attributed_install(api, sdk, app)
    assert deliveries(Kind.WEBHOOK) == 1
    assert not Webhook.objects.exists()


def test_postbacks_deleted_with_delete_selected_get_nothing_from_the_next_install(
        operator, api, sdk, app, postback, webhook):
    attributed_install(api, sdk, app)
    assert (deliveries(Kind.WEBHOOK), deliveries(Kind.POSTBACK)) == (1, 1)
    operator.delete_selected("/admin/delivery/postbackconfig/", [postback.pk])
    attributed_install(api, sdk, app)
    assert (deliveries(Kind.WEBHOOK), deliveries(Kind.POSTBACK)) == (2, 1)
    assert not PostbackConfig.objects.exists()
