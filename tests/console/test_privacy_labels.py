"""How the console's privacy request page names what a request found (console/views/privacy.py):
a label for every table an erasure changes and every kind an access document lists, in a fixed
order, and the raw name for anything else."""

from __future__ import annotations

import pytest
from django.utils import timezone

from console.views.privacy import FOUND_LABELS, found_label, found_rows
from privacy import services
from privacy.models import Source, SubjectRequest


def test_a_table_or_kind_reads_as_words():
    assert found_label("tracking_install") == "Installs"
    assert found_label("tracking_click") == "Clicks (hot store)"
    assert found_label("link_opens") == "Link opens"


def test_an_unknown_name_is_shown_as_it_is():
    assert found_label("somewhere_new") == "somewhere_new"


def test_rows_come_installs_first_and_unknown_names_last():
    found = {"apple_ads_claim": 0, "somewhere_new": 4, "tracking_event": 2,
             "tracking_install": 1}
    assert found_rows(found) == [("Installs", 1), ("Events", 2), ("Apple Ads claims", 0),
                                 ("somewhere_new", 4)]
    assert found_rows(None) == [] and found_rows({}) == []


@pytest.mark.django_db
def test_every_name_an_erasure_or_an_access_request_finds_has_a_label(app):
    """Each part returns every one of its names, rows or not, so running both kinds of request
    once collects them all; a part added to privacy/erasure.py without a label fails here."""
    now = timezone.now()
    names = set()
    for request_type in ("erasure", "access"):
        subject_request, _ = services.request_file(
            app=app, request_type=request_type, identity_type="android_advertising_id",
            identity_value="3f1c2a9e-0d4b-4e8f-9a61-5b7c8d9e0f12", submitted_time=now,
            now=now, source=Source.CONSOLE)
        assert services.request_run(request_id=subject_request.id)
        names |= set(SubjectRequest.objects.get(id=subject_request.id).found)
    assert {"tracking_install", "consent_consentrecord", "installs", "consent"} <= names
    assert names == set(FOUND_LABELS)  # and no label for a name nothing returns
