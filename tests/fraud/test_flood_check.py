"""Beat's click-flood check (analytics/flood_checks.py): a flooding source is flagged for the
day, `fraud.selectors.flooding_sources` names it, and its installs of the last 7 days are
labelled post_attribution (block) or flagged (flag): out of the paid counts, a re-attribution
webhook saying so, no postback to the network. A clean source is never touched."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from analytics import flood_checks, queries, rollups, tasks
from analytics.models import DailyInstallStat, RollupDirtyDay
from delivery.models import Delivery
from fraud import selectors as fraud_selectors
from fraud import services as fraud_services
from fraud.models import SourceFlag
from tests.analytics.helpers import install
from tests.clock import last_noon
from tests.delivery.helpers import make_postback, make_webhook
from tests.factories import AppFactory
from tests.fraud.test_flood import clean_ctits, flood_ctits
from tracking.models import ClickArchive, Install

pytestmark = pytest.mark.django_db(transaction=False)


def clicks(app, source: str, n: int, now: datetime, rng: random.Random) -> None:
    ClickArchive.objects.bulk_create([
        ClickArchive(app=app, media_source=source, campaign_id=f"{source}_c",
                     clicked_at=now - timedelta(seconds=rng.uniform(60, 6.9 * 86400)))
        for _ in range(n)], batch_size=2_000)


def installs(app, source: str, ctits, now: datetime, rng: random.Random) -> list[Install]:
    made = []
    for n, ctit in enumerate(ctits):
        at = now - timedelta(seconds=rng.uniform(60, 6 * 86400))
        made.append(install(app, at, f"{source}-{n}", source=source, campaign=f"{source}_c",
                            touch=at - timedelta(seconds=ctit)))
    return made


@pytest.fixture
def world(app):
    """A clean network converting 10% of 600 clicks with the published CTIT, and a flooder
    converting 0.8% of 2,500 clicks spread over the week."""
    rng = random.Random(11)
    now = last_noon()  # ten minutes later is the same UTC day, whenever the suite runs
    clicks(app, "good", 600, now, rng)
    clicks(app, "flooder", 2_500, now, rng)
    good = installs(app, "good", clean_ctits(rng, 60), now, rng)
    bad = installs(app, "flooder", flood_ctits(rng, 20), now, rng)
    return now, good, bad


def test_a_flooding_source_is_flagged_for_the_day_and_named_to_the_request_path(app, world):
    now, _, _ = world
    [flagged] = flood_checks.flood_check(now=now)
    assert (flagged.media_source, flagged.mode, flagged.relabelled) == ("flooder", "block", 20)
    flag = SourceFlag.objects.get()
    assert (flag.media_source, flag.day, flag.mode) == ("flooder", now.astimezone(UTC).date(),
                                                        "block")
    assert flag.stats["installs"] == 20 and flag.stats["clicks"] == 2_500
    assert flag.stats["conversion_rate"] == pytest.approx(0.008)
    assert sum(flag.stats["histogram"].values()) == 20
    assert fraud_selectors.flooding_sources(app.id, now.astimezone(UTC).date()) == frozenset(
        {"flooder"})
    assert fraud_selectors.flooding_sources(app.id, now.date() - timedelta(days=1)) == \
        frozenset()


def test_the_flooders_installs_of_the_week_are_labelled_post_attribution(app, world):
    now, good, bad = world
    flood_checks.flood_check(now=now)
    for row in Install.objects.filter(id__in=[i.id for i in bad]):
        assert row.fraud_status == "post_attribution"
        assert row.media_source == "flooder" and not row.is_organic  # not re-credited
        [reason] = row.fraud_reasons
        assert reason == {"reason": "click_flood", "value": 0.8, "sub_reason": "post_attribution"}
        assert row.decision["steps"][-1]["method"] == "fraud"
        assert "click flooding found after the install: flooder" in \
            row.decision["steps"][-1]["outcome"]
    assert set(Install.objects.filter(id__in=[i.id for i in good])
               .values_list("fraud_status", flat=True)) == {"clean"}


def test_a_second_run_relabels_nothing_twice_and_keeps_the_first_detection(app, world):
    now, _, _ = world
    flood_checks.flood_check(now=now)
    first = SourceFlag.objects.get().detected_at
    [again] = flood_checks.flood_check(now=now + timedelta(minutes=10))
    assert again.relabelled == 0
    assert SourceFlag.objects.get().detected_at == first
    assert all(len(r) == 1 for r in Install.objects.filter(media_source="flooder")
               .values_list("fraud_reasons", flat=True))


def test_post_attribution_leaves_the_paid_counts_once_the_days_are_rebuilt(app, world):
    now, good, bad = world
    rollups.refresh()
    period = queries.Period(app_id=app.id, start=(now - timedelta(days=7)).date(),
                            end=now.date())
    assert queries.dashboard(period=period, currency="USD").paid_installs == 80
    flood_checks.flood_check(now=now)
    assert RollupDirtyDay.objects.exists()  # the install days are queued for a rebuild
    rollups.refresh()
    board = queries.dashboard(period=period, currency="USD")
    assert board.paid_installs == 60
    assert board.post_attribution_installs == 20 and board.blocked_installs == 0
    assert board.total_installs == 60
    assert set(DailyInstallStat.objects.filter(media_source="flooder")
               .values_list("source_type", flat=True)) == {"post_attribution"}
    by_source = {row.media_source: row for row in queries.sources(period=period,
                                                                  currency="USD")}
    assert by_source["flooder"].installs == 0
    assert by_source["flooder"].post_attribution_installs == 20
    assert by_source["flooder"].clicks == 2_500


def test_a_reattribution_webhook_says_so_and_the_network_gets_no_postback(app, world):
    now, _, _ = world
    make_webhook(app, "https://hooks.example.com/in", events=("install",))
    make_postback(app, "https://flooder.example.com/pb", media_source="flooder")
    flood_checks.flood_check(now=now)
    hooks = Delivery.objects.filter(event_type="re-attribution")
    assert hooks.count() == 20
    assert all(hook.webhook_id is not None for hook in hooks)
    data = json.loads(hooks.first().body)["data"]
    assert data["media_source"] == data["previous_media_source"] == "flooder"
    assert data["fraud"] == {"status": "post_attribution", "reasons": [
        {"reason": "click_flood", "value": 0.8, "sub_reason": "post_attribution"}]}


def test_in_flag_mode_the_installs_are_flagged_and_stay_paid(app, world):
    now, _, bad = world
    fraud_services.settings_update(app_id=app.id, changes={"click_flood_mode": "flag"})
    make_webhook(app, "https://hooks.example.com/in", events=("install",))
    [flagged] = flood_checks.flood_check(now=now)
    assert flagged.mode == "flag"
    assert SourceFlag.objects.get().mode == "flag"
    assert set(Install.objects.filter(id__in=[i.id for i in bad])
               .values_list("fraud_status", flat=True)) == {"flagged"}
    assert not Delivery.objects.filter(event_type="re-attribution").exists()


def test_with_the_rule_off_nothing_is_flagged(app, world):
    now, _, _ = world
    fraud_services.settings_update(app_id=app.id, changes={"click_flood_mode": "off"})
    assert flood_checks.flood_check(now=now) == []
    assert not SourceFlag.objects.exists()
    assert not Install.objects.exclude(fraud_status="clean").exists()


def test_clean_traffic_alone_is_never_flagged(app):
    rng = random.Random(12)
    now = timezone.now()
    clicks(app, "a", 700, now, rng)
    clicks(app, "b", 900, now, rng)
    installs(app, "a", clean_ctits(rng, 70), now, rng)
    installs(app, "b", clean_ctits(rng, 40), now, rng)
    assert flood_checks.flood_check(now=now) == []


def test_each_app_is_judged_on_its_own_sources(app, world):
    now, _, _ = world
    other = AppFactory(organization=app.organization)
    rng = random.Random(13)
    clicks(other, "flooder", 700, now, rng)
    installs(other, "flooder", clean_ctits(rng, 70), now, rng)
    flagged = flood_checks.flood_check(now=now)
    assert [(f.app_id, f.media_source) for f in flagged] == [(app.id, "flooder")]


def test_installs_older_than_the_week_are_left_alone(app, world):
    now, _, _ = world
    old = install(app, now - timedelta(days=8), "old-device", source="flooder",
                  campaign="flooder_c", touch=now - timedelta(days=9))
    flood_checks.flood_check(now=now)
    assert Install.objects.get(id=old.id).fraud_status == "clean"


def test_the_beat_schedule_runs_the_check():
    from django.conf import settings

    assert settings.CELERY_BEAT_SCHEDULE["analytics.flood_check"]["task"] == \
        "analytics.flood_check"


def test_a_day_boundary_is_a_utc_day():
    now = datetime(2026, 3, 1, 0, 30, tzinfo=UTC)
    assert flood_checks.flood_check(now=now) == []


def test_a_weeks_flood_of_a_dozen_stolen_installs_is_flagged_by_beats_task(app):
    """Beat's task itself, on a week where a flood won only 12 installs (0.5% of 2,400 clicks
    spread over the week, against a norm of 10%), beside a large clean network, a small clean
    one and a clean display network converting as poorly as the flood."""
    rng = random.Random(14)
    now = timezone.now()
    clicks(app, "good", 1_000, now, rng)
    clicks(app, "small", 150, now, rng)
    clicks(app, "display", 3_000, now, rng)
    clicks(app, "flooder", 2_400, now, rng)
    installs(app, "good", clean_ctits(rng, 100), now, rng)
    installs(app, "small", clean_ctits(rng, 12), now, rng)
    installs(app, "display", clean_ctits(rng, 12), now, rng)
    stolen = installs(app, "flooder", flood_ctits(rng, 12), now, rng)

    tasks.flood_check.apply()

    flag = SourceFlag.objects.get()
    assert (flag.app_id, flag.media_source, flag.mode) == (app.id, "flooder", "block")
    assert flag.stats["installs"] == 12 and flag.stats["clicks"] == 2_400
    assert flag.stats["late_installs"] >= 5
    assert flag.stats["p_value"] <= flag.stats["alpha"] == 0.001
    assert flag.stats["app_installs"] == 124  # the clean sources are the app's baseline
    assert flag.stats["explanation"].startswith(
        f"flooding: {flag.stats['late_installs']} of 12 installs more than 24 h after the click")
    assert set(Install.objects.filter(id__in=[i.id for i in stolen])
               .values_list("fraud_status", flat=True)) == {"post_attribution"}
    assert set(Install.objects.exclude(media_source="flooder")
               .values_list("fraud_status", flat=True)) == {"clean"}
