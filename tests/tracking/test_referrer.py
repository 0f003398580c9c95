"""Install referrer parsing: pure, no database."""

import uuid
from urllib.parse import quote

import pytest

from tracking.referrer import decode, parse_install_referrer, store_referrer

CLICK = uuid.UUID("6f1c4f5e-2d4b-4b7a-9a8f-0c1e2d3f4a5b")


def test_our_store_referrer_names_the_click_source_and_campaign():
    info = parse_install_referrer(store_referrer(click_id=CLICK, media_source="facebook",
                                                 campaign_id="summer"))
    assert info.click_id == CLICK
    assert info.media_source == "facebook" and info.campaign_id == "summer"


@pytest.mark.parametrize("times", [1, 2])
def test_encoded_referrers_are_decoded_up_to_twice(times):
    raw = store_referrer(click_id=CLICK, media_source="fb", campaign_id="c1")
    for _ in range(times):
        raw = quote(raw, safe="")
    assert parse_install_referrer(raw).click_id == CLICK


def test_a_thrice_encoded_referrer_is_not_decoded_a_third_time():
    raw = quote(quote(quote("pid=fb", safe=""), safe=""), safe="")
    assert "=" not in decode(raw)
    assert parse_install_referrer(raw) is None


def test_utm_parameters_name_source_and_campaign():
    info = parse_install_referrer("utm_source=newsletter&utm_medium=email&utm_campaign=nov")
    assert (info.media_source, info.campaign_id, info.click_id) == ("newsletter", "nov", None)


@pytest.mark.parametrize("raw", [
    "utm_source=google-play&utm_medium=organic",
    "utm_source=(not%20set)&utm_medium=(not%20set)",
    "", "   ", "garbage without equals", "foo=bar",
])
def test_organic_or_empty_referrers_are_not_a_match(raw):
    assert parse_install_referrer(raw) is None


def test_invalid_click_id_is_ignored_but_source_kept():
    info = parse_install_referrer("click_id=not-a-uuid&pid=tiktok&c=x")
    assert info.click_id is None and info.media_source == "tiktok"
