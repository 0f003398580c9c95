"""The SKAdNetwork report end to end (docs/apple.md, "The SKAdNetwork report"): Apple's example
postbacks, received at the well-known path (skan), appear in the SKAdNetwork report decoded through
the app's schema."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from tests.conversion.samples import SCHEMA
from tests.factories import AppFactory
from tests.skan import apple_vectors as apple

pytestmark = pytest.mark.django_db


def test_apples_examples_appear_in_the_report_decoded_through_the_schema(api, owner_api,
                                                                          owner):
    app = AppFactory(organization=owner.organization, platform="ios", package_name=None,
                     bundle_id="com.example.shop", apple_app_id=str(apple.APP_STORE_ID))
    assert owner_api.post(f"/api/v1/apps/{app.id}/conversion-schemas", SCHEMA,
                          format="json").status_code == 201
    for example in (apple.V4_FINE, apple.V4_COARSE):  # fine 63; coarse "high"
        response = api.post("/.well-known/skadnetwork/report-attribution/",
                            data=json.dumps(example), content_type="application/json")
        assert response.status_code == 200

    today = timezone.now().date().isoformat()
    data = owner_api.get("/api/v1/analytics/skan", {"app_id": str(app.id),
                                                   "start_date": today,
                                                   "end_date": today}).json()["data"]
    rows = {row["source_identifier"]: row for row in data["rows"]}
    assert set(rows) == {"5239", "39"}
    fine, coarse = rows["5239"], rows["39"]
    assert (fine["window"], fine["installs"], fine["fine_values"]) == (
        0, 1, [{"value": 63, "postbacks": 1}])
    assert fine["estimated_revenue"] == 20.0  # rule "purchase >= 20": its floor
    assert coarse["coarse_values"] == {"low": 0, "medium": 0, "high": 1}
    assert coarse["estimated_revenue"] == 12.5  # least valuable "high" rule: [5, 20)
    assert fine["media_source"] == coarse["media_source"]
