"""The consent history in the admin (consent/admin.py): an operator lists, filters, searches and
reads consent rows, and can add, change or delete none."""

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from attribution_site.ids import uuid7
from consent import services
from consent.consent_data import Consent
from consent.models import ConsentRecord

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
GRANTED = Consent(gdpr_applies=True, ad_user_data=True, ad_personalization=True,
                  source="manual")
DENIED = Consent(gdpr_applies=True, ad_user_data=False, ad_personalization=False,
                 source="manual", sharing_filter="all")
LIST = reverse("admin:consent_consentrecord_changelist")


@pytest.fixture
def install_id():
    return uuid.uuid4()


@pytest.fixture
def records(app, install_id):
    """Two rows as the install path writes them, recorded a second apart: ids (UUIDv7) order
    rows to the millisecond, and the list's order is theirs."""
    granted = services.record_row(app_id=app.id, install_id=install_id,
                                  device_id="gaid-granted", applies_from=T0, consent=GRANTED)
    denied = services.record_row(app_id=app.id, install_id=None, device_id="gaid-denied",
                                 applies_from=T0 + timedelta(hours=1), consent=DENIED)
    now_ms = int(T0.timestamp() * 1000)
    granted.id, denied.id = uuid7(now_ms), uuid7(now_ms + 1000)
    ConsentRecord.objects.bulk_create([granted, denied])
    return ConsentRecord.objects.order_by("id")


def shown(response) -> list[str]:
    assert response.status_code == 200
    return [row.device_id for row in response.context["cl"].result_list]


def test_the_list_shows_every_record_newest_first(operator_client, records, app):
    response = operator_client.get(LIST)
    assert shown(response) == ["gaid-denied", "gaid-granted"]
    body = response.content.decode()
    assert app.name in body and "gaid-granted" in body


def test_search_finds_a_record_by_device_id_or_install_id(operator_client, records,
                                                          install_id):
    found = operator_client.get(LIST, {"q": "gaid-denied"})
    assert shown(found) == ["gaid-denied"]
    assert "2 total" not in found.content.decode()  # the whole table is not counted for it
    assert shown(operator_client.get(LIST, {"q": str(install_id)})) == ["gaid-granted"]
    assert shown(operator_client.get(LIST, {"q": "gaid-nobody"})) == []


def test_filters_narrow_the_list_by_app_and_by_what_the_user_said(operator_client, records,
                                                                  app):
    assert shown(operator_client.get(LIST, {"app__id__exact": str(app.id)})) == [
        "gaid-denied", "gaid-granted"]
    assert shown(operator_client.get(LIST, {"ad_user_data__exact": "0"})) == ["gaid-denied"]
    assert shown(operator_client.get(LIST, {"ad_personalization__exact": "1"})) == [
        "gaid-granted"]
    assert shown(operator_client.get(LIST, {"sharing_filter": "all"})) == ["gaid-denied"]
    assert shown(operator_client.get(LIST, {"sharing_filter": "none"})) == ["gaid-granted"]
    assert shown(operator_client.get(LIST, {"source": "tcf"})) == []
    assert shown(operator_client.get(LIST, {"source": "manual", "gdpr_applies__exact": "1"})
                 ) == ["gaid-denied", "gaid-granted"]


def test_no_record_is_added_here(operator_client, app):
    url = reverse("admin:consent_consentrecord_add")
    assert operator_client.get(url).status_code == 403
    response = operator_client.post(url, {
        "app": str(app.id), "device_id": "gaid-forged", "applies_from_0": "2026-03-01",
        "applies_from_1": "12:00:00", "gdpr_applies": "on", "source": "manual"})
    assert response.status_code == 403
    assert not ConsentRecord.objects.exists()


def test_the_change_page_shows_the_record_read_only_and_a_post_changes_nothing(
        operator_client, records):
    record = records.get(device_id="gaid-granted")
    url = reverse("admin:consent_consentrecord_change", args=[record.pk])
    page = operator_client.get(url)
    assert page.status_code == 200
    body = page.content.decode()
    assert "gaid-granted" in body
    assert 'name="device_id"' not in body and 'name="ad_user_data"' not in body
    assert 'name="_save"' not in body
    response = operator_client.post(url, {"device_id": "gaid-forged", "ad_user_data": "",
                                          "_save": "Save"})
    assert response.status_code == 403
    record.refresh_from_db()
    assert record.device_id == "gaid-granted" and record.ad_user_data is True


def test_no_record_is_deleted_here(operator_client, records):
    record = records.first()
    url = reverse("admin:consent_consentrecord_delete", args=[record.pk])
    assert operator_client.post(url, {"post": "yes"}).status_code == 403
    response = operator_client.post(LIST, {"action": "delete_selected",
                                           "_selected_action": [str(record.pk)], "post": "yes"})
    assert ConsentRecord.objects.filter(pk=record.pk).exists()
    assert response.status_code in (200, 302)
