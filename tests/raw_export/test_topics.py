"""The topics read by their own stamps (re-engagements and Apple Ads corrections, delivery
attempts, SKAdNetwork postbacks): what each row holds, what is left out, and the hour it lands
in."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import duckdb
import pytest

from apple_ads.models import Claim
from delivery.models import Delivery, DeliveryAttempt, PostbackConfig
from raw_export import columns
from raw_export.storage import DirectoryStorage
from raw_export.writing import write_run
from skan.models import Postback
from tests.analytics.helpers import at, install
from tracking.models import Reengagement

pytestmark = pytest.mark.django_db(transaction=True)
TOPICS = ["reattributions", "deliveries", "skan_postbacks"]


def read(root, topic: str, columns: str) -> list[tuple]:
    return duckdb.sql(f"SELECT {columns} FROM read_parquet('{root}/raw/t={topic}/*/*/*.parquet',"
                      f" hive_partitioning = true) ORDER BY ALL").fetchall()


@pytest.fixture
def day():
    return datetime.now(UTC).date() - timedelta(days=2)


def test_re_engagements_and_apple_ads_corrections_are_reattributions(app, day, tmp_path):
    came_back = install(app, at(day, 1), "dev-back", source="google", campaign="g1")
    click_id = uuid.uuid4()
    Reengagement.objects.create(app=app, install=came_back, click_id=click_id,
                                media_source="facebook", campaign_id="fb9",
                                clicked_at=at(day, 9, 30), reengaged_at=at(day, 10))
    moved = install(app, at(day, 2), "dev-apple", source="google", campaign="g1")
    Claim.objects.create(app=app, install_id=moved.id, state="attributed", reattributed=True,
                         completed_at=at(day, 2, 3), answer={
                             "attribution": True, "orgId": 40669820, "campaignId": 542370539,
                             "adGroupId": 542317095, "keywordId": 87675432,
                             "clickDate": f"{day}T01:55Z"})
    kept = install(app, at(day, 3), "dev-kept", source="google", campaign="g1")
    Claim.objects.create(app=app, install_id=kept.id, state="attributed", reattributed=False,
                         completed_at=at(day, 3, 1), answer={"attribution": True,
                                                            "campaignId": 1})

    write_run(storage=DirectoryStorage(tmp_path), prefix="raw", fmt="parquet", topics=TOPICS,
              app_ids=[app.id], since=None, run_id="r1")
    rows = read(tmp_path, "reattributions", "h, reattribution_type, install_id, click_id, "
                "media_source, campaign, af_adset, af_ad, attributed_touch_time")
    assert rows == [
        (2, "apple_ads", str(moved.id), None, "apple_search_ads", "542370539", "542317095",
         "87675432", at(day, 1, 55)),
        (10, "re-engagement", str(came_back.id), str(click_id), "facebook", "fb9", None, None,
         at(day, 9, 30)),
    ]


def test_delivery_attempts_go_without_bodies_or_query_strings_and_tests_stay_out(
        app, day, tmp_path):
    postback = PostbackConfig.objects.create(
        app=app, media_source="adnet", postback_url="https://adnet.example/pb?id={device_id}",
        events=["install"])
    for is_test, source in ((False, "install-1"), (True, "install-test")):
        delivery = Delivery.objects.create(
            app=app, kind="postback", postback=postback, event_type="install",
            source_id=source, is_test=is_test, body='{"device_id": "secret-device"}',
            state="succeeded", attempts_made=2, max_attempts=5)
        for number, (status, ok) in enumerate(((503, False), (200, True)), start=1):
            DeliveryAttempt.objects.create(
                delivery=delivery, app=app, kind="postback", number=number,
                http_method="GET", url="https://adnet.example/pb?id=secret-device",
                status_code=status, response_body="secret-answer", succeeded=ok,
                error_message="" if ok else "Answered 503", duration_ms=40,
                started_at=at(day, 11, 59, ) + timedelta(minutes=number),
                finished_at=at(day, 11, 59) + timedelta(minutes=number, seconds=1))

    write_run(storage=DirectoryStorage(tmp_path), prefix="raw", fmt="parquet", topics=TOPICS,
              app_ids=[app.id], since=None, run_id="r1")
    rows = read(tmp_path, "deliveries", "h, attempt, source_id, media_source, url, status_code, "
                "succeeded, error_message")
    assert rows == [(12, 1, "install-1", "adnet", "https://adnet.example/pb", 503, False,
                     "Answered 503"),
                    (12, 2, "install-1", "adnet", "https://adnet.example/pb", 200, True, "")]
    everything = b"".join(p.read_bytes() for p in tmp_path.rglob("*.parquet"))
    assert b"secret-device" not in everything and b"secret-answer" not in everything


def test_skan_postbacks_keep_apples_fields_without_the_raw_body(app, day, tmp_path):
    Postback.objects.create(
        app=app, framework="skadnetwork", version="4.0", ad_network_id="Example123.SKAdNetwork",
        transaction_id="6aafb7a5-0170-41b5-bbe4-fe71dedf1e31", postback_sequence_index=0,
        source_identifier="5239", fine_value=42, did_win=True, redownload=False,
        raw_body='{"attribution-signature": "secret-signature"}', verdict="verified",
        received_at=at(day, 23, 30))
    write_run(storage=DirectoryStorage(tmp_path), prefix="raw", fmt="parquet", topics=TOPICS,
              app_ids=[app.id], since=None, run_id="r1")
    rows = read(tmp_path, "skan_postbacks", "dt, h, ad_network_id, media_source, fine_value, "
                "did_win, source_identifier, schema_version")
    assert rows == [(day, 23, "Example123.SKAdNetwork", "example123.skadnetwork", 42, True,
                     "5239", columns.SCHEMA_VERSION)]
    everything = b"".join(p.read_bytes() for p in tmp_path.rglob("*.parquet"))
    assert b"secret-signature" not in everything


def test_blocked_installs_have_a_topic_of_their_own_with_their_reasons(app, day, tmp_path):
    from tracking.models import Install
    clean = install(app, at(day, 4), "dev-clean", source="google", campaign="g1")
    blocked = install(app, at(day, 5), "dev-hijacked", source=None, campaign=None)
    reasons = [{"reason": "ctit_anomalies", "value": 3, "sub_reason": ""}]
    Install.objects.filter(id=blocked.id).update(fraud_status="blocked", fraud_reasons=reasons)

    write_run(storage=DirectoryStorage(tmp_path), prefix="raw", fmt="parquet",
              topics=["installs", "blocked_installs"], app_ids=[app.id], since=None,
              run_id="r1")
    rows = read(tmp_path, "blocked_installs", "h, install_id, fraud_status, fraud_reasons")
    assert [row[:3] for row in rows] == [(5, str(blocked.id), "blocked")]
    assert '"ctit_anomalies"' in rows[0][3]
    every = read(tmp_path, "installs", "install_id, fraud_status")
    assert sorted(every) == sorted([(str(clean.id), "clean"), (str(blocked.id), "blocked")])


def test_cost_holds_pulled_and_uploaded_spend_by_the_hour_it_was_stored(app, day, tmp_path):
    from decimal import Decimal

    from analytics.costs import SpendRow, cost_rows_replace
    from analytics.models import CampaignCost, CurrencyRate, PulledCost

    CurrencyRate.objects.create(currency="EUR", day=day, units_per_usd=Decimal("0.8"))
    cost_rows_replace(app_id=app.id, connection="meta", media_source="meta", account="act_9",
                      days=[day], rows=[SpendRow(
                          day=day, campaign_id="c1", adset_id="s1", ad_id="a1",
                          spend=Decimal("12.345678"), currency="EUR", impressions=900,
                          clicks=7, campaign_name="Spring")])
    PulledCost.objects.update(pulled_at=at(day, 6, 15))  # an hour long complete
    CampaignCost.objects.create(app=app, day=day, media_source="tiktok", campaign_id="t1",
                                cost=Decimal("5"), currency="USD", updated_at=at(day, 8))
    write_run(storage=DirectoryStorage(tmp_path), prefix="raw", fmt="parquet", topics=["cost"],
              app_ids=[app.id], since=None, run_id="r1")
    rows = read(tmp_path, "cost", "h, source, connection, media_source, account, date, "
                "campaign, campaign_name, af_adset_id, af_ad_id, currency, spend, spend_usd, "
                "impressions, clicks, schema_version")
    assert rows == [
        (6, "pull", "meta", "meta", "act_9", day.isoformat(), "c1", "Spring", "s1", "a1", "EUR",
         Decimal("12.345678"), Decimal("15.432098"), 900, 7, columns.SCHEMA_VERSION),
        (8, "csv", "", "tiktok", "", day.isoformat(), "t1", "", "", "", "USD", Decimal("5"),
         Decimal("5"), None, None, columns.SCHEMA_VERSION)]
