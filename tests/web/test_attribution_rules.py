"""web/attribution.py, the visit's credit, rule by rule. Pure: no database."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from tracking.waterfall_inputs import ClickCandidate
from web.attribution import VisitSignals, click_id_of, referrer_host, visit_verdict

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
CLICK = ClickCandidate(id=uuid.UUID(int=5), clicked_at=datetime(2026, 12, 7, 11, tzinfo=UTC),
                       media_source="newsletter", campaign_id="spring")


def verdict(click=None, **signals):
    return visit_verdict(VisitSignals(url="https://shop.example/p", **signals), click=click,
                         visited_at=NOW)


def test_a_named_click_of_the_app_wins_over_everything():
    found = verdict(CLICK, attribution_click_id=str(CLICK.id), utm_source="google",
                    gclid="g")
    assert (found.match_type, found.confidence, found.media_source, found.campaign_id) == (
        "click_id", 100.0, "newsletter", "spring")
    assert found.click == CLICK and found.touch_time == CLICK.clicked_at


def test_a_click_id_that_names_no_click_of_the_app_falls_through():
    found = verdict(None, attribution_click_id=str(uuid.uuid4()), utm_source="mail")
    assert found.match_type == "utm"
    assert found.trail["steps"][0]["outcome"].startswith("the named click is not")


def test_utm_source_and_campaign_credit_the_visit():
    found = verdict(utm_source="google", utm_campaign="brand", gclid="g")
    assert (found.match_type, found.media_source, found.campaign_id, found.touch_time) == (
        "utm", "google", "brand", NOW)


def test_a_utm_campaign_without_a_source_credits_nothing():
    assert verdict(utm_campaign="brand").is_organic


def test_click_parameters_in_order_gclid_fbclid_ttclid():
    assert verdict(gclid="a", fbclid="b").media_source == "google"
    assert verdict(fbclid="b", ttclid="c").media_source == "meta"
    assert verdict(ttclid="c").media_source == "tiktok"
    assert verdict(ttclid="c").match_type == "click_param"


def test_nothing_is_organic_with_the_referrer_host_in_the_trail():
    found = verdict(referrer="https://News.Example/a?b=1")
    assert found.is_organic and found.media_source is None
    assert found.trail["web"] == {"referrer_host": "news.example"}


def test_a_page_referring_itself_is_no_referrer():
    signals = VisitSignals(url="https://shop.example/b", referrer="https://shop.example/a")
    assert referrer_host(signals) is None


def test_a_click_id_that_is_no_uuid_names_no_click():
    assert click_id_of(VisitSignals(url="x", attribution_click_id="1 OR 1=1")) is None
