"""The consent history's functions other apps call (consent/selectors.py, consent/services.py):
the consent at a moment, many users' in one query, an identity's rows for an access request,
and erasure."""

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from consent import selectors, services
from consent.consent_data import Consent
from consent.models import ConsentRecord
from tests.factories import AppFactory

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
GRANTED = Consent(gdpr_applies=True, ad_user_data=True, ad_personalization=True,
                  source="manual")
DENIED = Consent(gdpr_applies=True, ad_user_data=False, ad_personalization=False,
                 source="manual")
FILTERED = Consent(gdpr_applies=False, ad_user_data=True, ad_personalization=True,
                   source="manual", sharing_filter="all")


def record(app, consent, at, *, install_id=None, device_id=None):
    return services.consent_record(app_id=app.id, install_id=install_id, device_id=device_id,
                                   applies_from=at, consent=consent)


def test_the_consent_at_a_moment_is_the_latest_change_before_it(app):
    install = uuid.uuid4()
    record(app, GRANTED, T0, install_id=install)
    record(app, DENIED, T0 + timedelta(hours=2), install_id=install)
    of = selectors.consent_of
    assert of(app_id=app.id, install_id=install, at=T0 - timedelta(seconds=1)) is None
    assert of(app_id=app.id, install_id=install, at=T0 + timedelta(hours=1)) == GRANTED
    assert of(app_id=app.id, install_id=install, at=T0 + timedelta(hours=2)) == DENIED
    assert of(app_id=app.id, install_id=install) == DENIED


def test_a_device_ids_consent_counts_for_its_install(app):
    install = uuid.uuid4()
    record(app, DENIED, T0, device_id="gaid-1")
    assert selectors.consent_of(app_id=app.id, install_id=install, device_id="gaid-1") == DENIED
    assert selectors.consent_of(app_id=app.id, install_id=install) is None


def test_another_apps_consent_is_not_this_apps(app):
    other = AppFactory(organization=app.organization)
    record(other, DENIED, T0, device_id="gaid-1")
    assert selectors.consent_of(app_id=app.id, device_id="gaid-1") is None


def test_many_subjects_are_answered_with_one_query(app):
    installs = [uuid.uuid4() for _ in range(50)]
    for n, install in enumerate(installs):
        record(app, DENIED if n % 2 else GRANTED, T0, install_id=install)
    subjects = [selectors.Subject(app.id, install, None, T0 + timedelta(minutes=1))
                for install in installs]
    with CaptureQueriesContext(connection) as queries:
        answers = selectors.consents_at(subjects)
    assert len(queries) == 1
    assert answers == [DENIED if n % 2 else GRANTED for n in range(50)]


def test_subjects_without_ids_cost_no_query(app):
    with CaptureQueriesContext(connection) as queries:
        assert selectors.consents_at([selectors.Subject(app.id, None, None)]) == [None]
    assert len(queries) == 0


def test_a_repeat_of_the_consent_in_force_adds_no_row(app):
    assert record(app, DENIED, T0, device_id="gaid-1") is True
    assert record(app, DENIED, T0 + timedelta(minutes=5), device_id="gaid-1") is False
    assert record(app, GRANTED, T0 + timedelta(minutes=6), device_id="gaid-1") is True
    assert record(app, DENIED, T0 + timedelta(minutes=7), device_id="gaid-1") is True
    assert ConsentRecord.objects.count() == 3


def test_a_sharing_filter_is_kept(app):
    record(app, FILTERED, T0, device_id="gaid-1")
    assert selectors.consent_of(app_id=app.id, device_id="gaid-1").sharing_filter == "all"


def test_records_for_lists_every_row_of_the_identity_oldest_first(app):
    install = uuid.uuid4()
    record(app, GRANTED, T0, install_id=install, device_id="gaid-1")
    record(app, DENIED, T0 + timedelta(days=1), device_id="gaid-1")
    record(app, DENIED, T0, device_id="someone-else")
    rows = selectors.records_for(app.id, install_ids=[install], device_ids=["gaid-1"])
    assert [row["ad_user_data"] for row in rows] == [True, False]
    assert rows[0]["install_id"] == str(install) and rows[0]["device_id"] == "gaid-1"
    assert rows[0]["applies_from"] == "2026-03-01T12:00:00Z" and rows[0]["source"] == "manual"
    json.dumps(rows)  # ready for the access document as it is
    assert set(rows[0]) >= {"gdpr_applies", "ad_personalization", "sharing_filter",
                            "tcstring", "tcf_purposes_consent", "recorded_at"}
    assert selectors.records_for(app.id) == []


def test_erase_removes_the_identitys_rows_and_only_those(app):
    install = uuid.uuid4()
    record(app, GRANTED, T0, install_id=install, device_id="gaid-1")
    record(app, DENIED, T0 + timedelta(days=1), device_id="gaid-1")
    record(app, DENIED, T0, device_id="someone-else")
    other = AppFactory(organization=app.organization)
    record(other, DENIED, T0, device_id="gaid-1")
    assert services.erase(app.id, install_ids=[install], device_ids=["gaid-1"]) == 2
    assert selectors.consent_of(app_id=app.id, device_id="gaid-1") is None
    assert selectors.consent_of(app_id=app.id, device_id="someone-else") == DENIED
    assert selectors.consent_of(app_id=other.id, device_id="gaid-1") == DENIED
    assert services.erase(app.id) == 0
