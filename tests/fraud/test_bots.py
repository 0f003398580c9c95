"""bots: the one list of bots and crawlers (tracking.useragent.is_bot), and the rule at click
time through /clicks: block does not record the click, flag records it, both count it."""

import pytest

from fraud import services as fraud_services
from fraud import verdict as v
from fraud.models import BotClicks
from tracking.models import Click
from tracking.useragent import is_bot

GOOGLEBOT = ("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; "
             "+http://www.google.com/bot.html) Chrome/120.0.0.0 Safari/537.36")
FACEBOOK_PREVIEW = "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"
HEADLESS = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
            "HeadlessChrome/120.0.0.0 Safari/537.36")
PHONE = ("Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
         "Chrome/120.0.0.0 Mobile Safari/537.36")


@pytest.mark.parametrize("agent", [GOOGLEBOT, FACEBOOK_PREVIEW, HEADLESS])
def test_crawlers_and_headless_browsers_are_bots(agent):
    assert is_bot(agent)


@pytest.mark.parametrize("agent", [PHONE, "", "curl/8.4.0", "okhttp/4.12.0"])
def test_people_and_plain_http_clients_are_not(agent):
    assert not is_bot(agent)


def click_from(api, app, agent):
    return api.get("/api/v1/clicks", {"app_id": str(app.id), "pid": "network_a"},
                   HTTP_USER_AGENT=agent, REMOTE_ADDR="81.2.69.142")


@pytest.mark.django_db
def test_by_default_a_bots_click_is_redirected_but_not_recorded_and_is_counted(api, app):
    response = click_from(api, app, GOOGLEBOT)
    assert response.status_code == 302
    assert not Click.objects.exists()
    assert BotClicks.objects.get(app=app, media_source="network_a", mode=v.BLOCK).clicks == 1
    click_from(api, app, HEADLESS)
    assert BotClicks.objects.get(app=app, media_source="network_a", mode=v.BLOCK).clicks == 2


@pytest.mark.django_db
def test_in_flag_mode_a_bots_click_is_recorded_and_counted(api, app):
    fraud_services.settings_update(app_id=app.id, changes={"bots_mode": v.FLAG})
    click_from(api, app, GOOGLEBOT)
    assert Click.objects.count() == 1
    assert BotClicks.objects.get(app=app, mode=v.FLAG).clicks == 1


@pytest.mark.django_db
def test_off_records_a_bots_click_uncounted_and_a_persons_click_is_never_counted(api, app):
    click_from(api, app, PHONE)
    assert Click.objects.count() == 1
    fraud_services.settings_update(app_id=app.id, changes={"bots_mode": v.OFF})
    click_from(api, app, GOOGLEBOT)
    assert Click.objects.count() == 2
    assert not BotClicks.objects.exists()
