"""The one length rule for click values: a click with a 10,000-character campaign is still
recorded and redirected, with the value cut to 255 characters in the stored click and in the
Play Store referrer, so the install that comes back with that referrer is accepted and
attributed; a person building a link is told instead."""

import uuid
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.tracking.helpers import ANDROID_SDK, click_through, install_body
from tracking import click_links
from tracking.click_values import MAX_LENGTH, TOO_LONG, click_values
from tracking.models import Click, Install


def test_values_within_the_limit_are_kept_as_they_are():
    kept = click_values(media_source="facebook", campaign_id="c" * MAX_LENGTH, adset="", ad="a")
    assert (kept.media_source, kept.campaign_id, kept.adset, kept.ad, kept.cut) == (
        "facebook", "c" * MAX_LENGTH, "", "a", ())


def test_longer_values_are_cut_and_named():
    cut = click_values(media_source="m" * 300, campaign_id="c" * 10_000, adset="s", ad="a" * 256)
    assert (len(cut.media_source), len(cut.campaign_id), len(cut.ad)) == (MAX_LENGTH,) * 3
    assert cut.cut == ("media_source", "campaign_id", "ad")


def test_the_link_builder_refuses_a_value_it_would_otherwise_cut():
    link = click_links.ClickLink(app_id=uuid.uuid4(), media_source="facebook",
                                 campaign_id="c" * (MAX_LENGTH + 1), ad="a" * MAX_LENGTH)
    assert click_links.link_problems(link) == {click_links.CAMPAIGN: [TOO_LONG]}


@pytest.mark.django_db
def test_a_ten_thousand_character_campaign_is_cut_in_the_click_and_its_referrer_and_the_install_is_attributed(  # noqa: E501
        api, sdk, app):
    response = click_through(api, app, pid="facebook", c="x" * 10_000)
    assert response.status_code == 302
    click = Click.objects.get()
    assert click.campaign_id == "x" * MAX_LENGTH
    referrer = parse_qs(urlsplit(response["Location"]).query)["referrer"][0]
    assert parse_qs(referrer)["c"] == ["x" * MAX_LENGTH]
    assert len(referrer) < 4096  # the install's own limit for install_referrer
    installed = sdk.post("/api/v1/installs", install_body(app, install_referrer=referrer),
                             format="json", HTTP_USER_AGENT=ANDROID_SDK)
    assert installed.status_code == 201, installed.json()
    assert installed.json()["data"]["matchType"] == "install_referrer"
    assert Install.objects.get().campaign_id == "x" * MAX_LENGTH
