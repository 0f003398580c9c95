"""The console's postbacks and webhooks: create and edit forms checked by the API's serializers,
activate and deactivate, delete after a confirmation, test sends to real local receivers, the
webhook secret shown once, the delivery log with its cursor and filter, and redelivery."""

from __future__ import annotations

import re
import uuid

import pytest
from django.urls import reverse

from attribution_site.secrets import WEBHOOK_SIGNING, secret_decrypt
from delivery.models import Delivery, DeliveryAttempt, PostbackConfig, State, Webhook
from tests.console.helpers import XSS_CAMPAIGN, XSS_SOURCE, assert_shown_as_text
from tests.delivery import conftest as delivery_fixtures
from tests.delivery.helpers import make_postback, make_webhook
from tests.delivery.receivers import Reply
from tests.factories import AppFactory

pytestmark = pytest.mark.django_db

# The delivery tests' real local receivers (plain and TLS through a trustme CA).
ca, ca_bundle_path = delivery_fixtures.ca, delivery_fixtures.ca_bundle_path
trusted_ca, receiver_factory = delivery_fixtures.trusted_ca, delivery_fixtures.receiver_factory
receiver = delivery_fixtures.receiver
private_destinations_allowed = delivery_fixtures.private_destinations_allowed


def page(name, app, *args):
    return reverse(f"console:{name}", args=[app.id, *args])


def body_of(response) -> str:
    return response.content.decode()


# --- The list ----------------------------------------------------------------------------------

def test_the_list_shows_both_kinds_with_their_state_and_actions(console, app):
    postback = make_postback(app, "https://network.example/pb?d={device_id}",
                             media_source="facebook", events=("install", "event"))
    webhook, _ = make_webhook(app, "https://hooks.example/in", active=False)
    response = console.get(page("deliveries", app))
    assert response.status_code == 200
    body = body_of(response)
    assert "https://network.example/pb?d={device_id}" in body
    assert "install, event" in body and "facebook" in body
    assert "https://hooks.example/in" in body and "Inactive" in body
    for kind, config in (("postback", postback), ("webhook", webhook)):
        for action in ("delivery-edit", "delivery-log", "delivery-test", "delivery-active",
                       "delivery-delete"):
            assert page(action, app, kind, config.id) in body
    assert body.count('<input type="hidden" name="active" value="true">') == 1  # Activate


def test_the_list_counts_each_configurations_deliveries_not_yet_tried(console, app):
    postback = make_postback(app, "https://network.example/pb")
    webhook, _ = make_webhook(app, "https://hooks.example/in")
    for state, attempts_made in ((State.PENDING, 0), (State.PENDING, 0), (State.PENDING, 0),
                                 (State.PENDING, 1), (State.CANCELLED, 0)):
        Delivery.objects.create(app=app, kind="postback", postback=postback, event_type="install",
                                source_id=str(uuid.uuid4()), body="{}", max_attempts=4,
                                state=state, attempts_made=attempts_made)
    body = body_of(console.get(page("deliveries", app)))
    log = page("delivery-log", app, "postback", postback.id)
    assert f'<a href="{log}?state=pending">3</a>' in body
    assert page("delivery-log", app, "webhook", webhook.id) + "?state=pending" not in body


def test_user_typed_urls_and_sources_are_shown_as_text(console, app):
    make_postback(app, f"https://network.example/pb?c={XSS_CAMPAIGN}", media_source=XSS_SOURCE)
    make_webhook(app, f"https://hooks.example/{XSS_CAMPAIGN}")
    body = body_of(console.get(page("deliveries", app)))
    assert_shown_as_text(body)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body


# --- Postback forms ----------------------------------------------------------------------------

def test_owner_creates_a_postback(console, app):
    response = console.post(page("delivery-new", app, "postback"), {
        "media_source": "facebook", "postback_url": "https://fb.example/i?d={device_id}",
        "http_method": "POST", "events": ["install", "re-engagement"], "active": "true"})
    assert response.status_code == 302
    assert response["Location"] == page("deliveries", app)
    postback = PostbackConfig.objects.get(app=app)
    assert (postback.media_source, postback.postback_url, postback.http_method,
            postback.events, postback.active) == (
        "facebook", "https://fb.example/i?d={device_id}", "POST",
        ["install", "re-engagement"], True)


def test_the_new_postback_form_has_a_label_for_every_input(console, app):
    body = body_of(console.get(page("delivery-new", app, "postback")))
    assert 'for="id_media_source"' in body and 'for="id_postback_url"' in body
    assert body.count('type="checkbox" name="events"') == 3
    assert 'value="install" checked' in body  # the API's default, shown
    assert "{install_time}" in body  # the macros are listed


@pytest.mark.parametrize("fields,field,message", [
    ({"media_source": ""}, "media_source", "This field may not be blank."),
    ({"postback_url": "https://fb.example/?x={nope}"}, "postback_url", "{nope}"),
    ({"postback_url": "ftp://fb.example/"}, "postback_url", "Must be an absolute http or https"),
    ({"events": []}, "events", "This list may not be empty."),
    ({"http_method": "PUT"}, "http_method", "Must be GET or POST."),
])
def test_a_bad_postback_is_refused_with_the_message_beside_its_field(console, app, fields,
                                                                     field, message):
    form = {"media_source": "facebook", "postback_url": "https://fb.example/i",
            "http_method": "GET", "events": ["install"], **fields}
    response = console.post(page("delivery-new", app, "postback"), form)
    assert response.status_code == 400
    body = body_of(response)
    errors = body[body.index(f'id="err_{field}"') if f'id="err_{field}"' in body else
                  body.index('<ul class="errors">'):]
    assert message in errors.split("</ul>")[0]
    assert not PostbackConfig.objects.exists()


def test_a_second_postback_for_a_media_source_is_a_conflict(console, app):
    make_postback(app, "https://fb.example/one", media_source="facebook")
    response = console.post(page("delivery-new", app, "postback"), {
        "media_source": "facebook", "postback_url": "https://fb.example/two",
        "http_method": "GET", "events": ["install"]})
    assert response.status_code == 409
    assert "A postback for media source &#x27;facebook&#x27; already exists" in body_of(response)
    assert PostbackConfig.objects.count() == 1


def test_a_private_destination_is_refused_when_the_check_is_on(console, app, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    response = console.post(page("delivery-new", app, "postback"), {
        "media_source": "fb", "postback_url": "http://127.0.0.1:9/x", "http_method": "GET",
        "events": ["install"]})
    assert response.status_code == 400
    assert "Refused:" in body_of(response)
    assert not PostbackConfig.objects.exists()


def test_owner_edits_a_postback(console, app):
    postback = make_postback(app, "https://fb.example/old", media_source="facebook")
    form = page("delivery-edit", app, "postback", postback.id)
    assert 'value="https://fb.example/old"' in body_of(console.get(form))
    response = console.post(form, {"media_source": "meta", "postback_url": "https://m.example/n",
                                   "http_method": "GET", "events": ["install", "event"],
                                   "active": "true"})
    assert response.status_code == 302
    postback.refresh_from_db()
    assert (postback.media_source, postback.postback_url, postback.events) == (
        "meta", "https://m.example/n", ["install", "event"])


def test_an_edit_with_errors_changes_nothing(console, app):
    postback = make_postback(app, "https://fb.example/old", media_source="facebook")
    response = console.post(page("delivery-edit", app, "postback", postback.id), {
        "media_source": "facebook", "postback_url": "", "http_method": "GET",
        "active": "true"})
    assert response.status_code == 400
    body = body_of(response)
    assert "This field may not be blank." in body and "This list may not be empty." in body
    postback.refresh_from_db()
    assert (postback.postback_url, postback.events) == ("https://fb.example/old", ["install"])


def test_deactivating_and_activating_go_through_the_update(console, app):
    postback = make_postback(app, "https://fb.example/x")
    url = page("delivery-active", app, "postback", postback.id)
    response = console.post(url, {}, follow=True)
    assert "Postback deactivated" in body_of(response)
    postback.refresh_from_db()
    assert postback.active is False
    console.post(url, {})  # the same click again: still inactive
    postback.refresh_from_db()
    assert postback.active is False
    console.post(url, {"active": "true"})
    postback.refresh_from_db()
    assert postback.active is True
    assert console.get(url).status_code == 405


def test_delete_asks_first_then_deletes_and_keeps_the_log(console, app, receiver):
    postback = make_postback(app, receiver.url("/pb"))
    console.post(page("delivery-test", app, "postback", postback.id))
    url = page("delivery-delete", app, "postback", postback.id)
    confirm = console.get(url)
    assert confirm.status_code == 200
    assert "Delete this postback?" in body_of(confirm) and 'method="post"' in body_of(confirm)
    assert PostbackConfig.objects.filter(id=postback.id).exists()
    response = console.post(url)
    assert response.status_code == 302
    assert not PostbackConfig.objects.filter(id=postback.id).exists()
    assert DeliveryAttempt.objects.filter(app=app).count() == 1


# --- Webhooks and the secret -------------------------------------------------------------------

def test_a_new_webhooks_secret_is_shown_once_and_not_cached(console, app):
    response = console.post(page("delivery-new", app, "webhook"), {
        "url": "https://hooks.example/in", "events": ["install", "event"]})
    webhook = Webhook.objects.get(app=app)
    assert response.status_code == 302
    assert response["Location"] == page("webhook-secret", app, webhook.id)
    shown = console.get(response["Location"])
    assert shown.status_code == 200
    assert "no-store" in shown["Cache-Control"]
    body = body_of(shown)
    secret = secret_decrypt(webhook.secret_encrypted, purpose=WEBHOOK_SIGNING)
    assert f'value="{secret}" readonly' in body
    assert 'data-copy="webhook-secret"' in body and "shown only once" in body
    assert webhook.events == ["install", "event"] and webhook.active is True

    reloaded = console.get(response["Location"])
    assert reloaded.status_code == 200 and "no-store" in reloaded["Cache-Control"]
    assert secret not in body_of(reloaded)
    assert "was shown once and is not available again" in body_of(reloaded)
    assert not any(secret in str(value) for value in console.session.values())


@pytest.mark.parametrize("fields,message", [
    ({"url": "http://hooks.example/in"}, "Must be an absolute https URL."),
    ({"url": ""}, "This field may not be blank."),
    ({"events": []}, "This list may not be empty."),
])
def test_a_bad_webhook_is_refused(console, app, fields, message, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False  # as in production: webhooks are https
    form = {"url": "https://hooks.example/in", "events": ["install"], **fields}
    response = console.post(page("delivery-new", app, "webhook"), form)
    assert response.status_code == 400
    assert message in body_of(response)
    assert not Webhook.objects.exists()


@pytest.mark.parametrize("allowed", [True, False])
def test_a_public_plain_http_webhook_is_refused_on_both_forms(console, app, settings, allowed):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = allowed
    form = {"url": "http://93.184.216.34/in", "events": ["install"]}
    created = console.post(page("delivery-new", app, "webhook"), form)
    assert created.status_code == 400
    message = ("plain http is only for a receiver on loopback or a private network" if allowed
               else "Must be an absolute https URL.")
    assert message in body_of(created).split('id="err_url"')[1].split("</ul>")[0]
    assert not Webhook.objects.exists()
    webhook, _ = make_webhook(app, "https://hooks.example/a")
    edited = console.post(page("delivery-edit", app, "webhook", webhook.id), form)
    assert edited.status_code == 400
    assert message in body_of(edited).split('id="err_url"')[1].split("</ul>")[0]
    webhook.refresh_from_db()
    assert webhook.url == "https://hooks.example/a"


def test_owner_edits_and_deactivates_a_webhook(console, app):
    webhook, _ = make_webhook(app, "https://hooks.example/a")
    response = console.post(page("delivery-edit", app, "webhook", webhook.id), {
        "url": "https://hooks.example/b", "events": ["event"]})
    assert response.status_code == 302
    webhook.refresh_from_db()
    assert (webhook.url, webhook.events, webhook.active) == (
        "https://hooks.example/b", ["event"], False)


# --- Tests sends -------------------------------------------------------------------------------

def test_a_test_send_shows_the_receivers_answer_as_text(console, app, receiver_factory,
                                                        trusted_ca):
    hostile = receiver_factory(Reply(status=500, body=XSS_CAMPAIGN.encode() * 2), tls=True)
    webhook, _ = make_webhook(app, hostile.url("/hook"), active=False)
    response = console.post(page("delivery-test", app, "webhook", webhook.id))
    assert response.status_code == 200
    body = body_of(response)
    assert "Not delivered: the receiver answered 500" in body
    assert " ms</dd>" in body
    assert_shown_as_text(body)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert "only tests are sent" in body
    sent = hostile.wait_for(1)[0]
    assert b'"test":true' in sent.body
    attempt = DeliveryAttempt.objects.get(app=app)
    assert attempt.delivery.is_test and attempt.status_code == 500


def test_a_delivered_test_says_so(console, app, receiver):
    postback = make_postback(app, receiver.url("/pb?d={device_id}"))
    response = console.post(page("delivery-test", app, "postback", postback.id))
    assert "Delivered: the receiver answered 200." in body_of(response)
    assert receiver.wait_for(1)[0].path.startswith("/pb?d=")


# --- The log and redelivery ----------------------------------------------------------------------

def failed_delivery(app, config, *, kind="postback", attempts=1) -> Delivery:
    delivery = Delivery.objects.create(
        app=app, kind=kind, postback=config if kind == "postback" else None,
        webhook=config if kind == "webhook" else None, event_type="install",
        source_id=str(uuid.uuid4()), body="{}", state=State.FAILED, attempts_made=attempts,
        max_attempts=attempts)
    for number in range(1, attempts + 1):
        DeliveryAttempt.objects.create(
            delivery=delivery, app=app, kind=kind, number=number, http_method="GET",
            url="https://fb.example/x", status_code=503, succeeded=False,
            response_body=XSS_CAMPAIGN, error_message="HTTP 503", duration_ms=12)
    return delivery


def test_the_log_lists_attempts_newest_first_with_an_older_link(console, app, receiver):
    postback = make_postback(app, receiver.url("/pb"))
    for _ in range(3):
        console.post(page("delivery-test", app, "postback", postback.id))
    ids = list(DeliveryAttempt.objects.order_by("-started_at", "-id").values_list("id",
                                                                                 flat=True))
    url = page("delivery-log", app, "postback", postback.id)
    first = console.get(url + "?limit=2")
    assert first.status_code == 200
    body = body_of(first)
    assert body.count("<tr class=\"succeeded\">") == 2
    assert "1 of 1" in body and ">test</span>" in body and ">200<" in body
    older = body.split('rel="next"')[0].rsplit('href="?', 1)[1].split('"')[0]
    second = console.get(url + "?" + older.replace("&amp;", "&"))
    assert body_of(second).count("<tr class=\"succeeded\">") == 1
    assert 'rel="next"' not in body_of(second) and ">Newest<" in body_of(second)
    assert len(ids) == 3


def test_the_log_shows_response_bodies_as_text_and_filters_by_state(console, app, receiver):
    postback = make_postback(app, receiver.url("/pb"))
    failed_delivery(app, postback, attempts=2)
    console.post(page("delivery-test", app, "postback", postback.id))
    url = page("delivery-log", app, "postback", postback.id)
    body = body_of(console.get(url))
    assert_shown_as_text(body)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body and "HTTP 503" in body
    assert body.count(">Redeliver</button>") == 1  # on the delivery's last attempt only
    only_failed = body_of(console.get(url + "?state=failed"))
    assert only_failed.count('<tr class="failed">') == 2
    assert 'value="failed" checked' in only_failed
    assert '<tr class="succeeded">' not in only_failed


def test_the_log_shows_deliveries_waiting_for_a_worker(console, app):
    postback = make_postback(app, "https://fb.example/x")
    for _ in range(2):
        Delivery.objects.create(app=app, kind="postback", postback=postback, event_type="install",
                                source_id=str(uuid.uuid4()), body="{}", max_attempts=4)
    url = page("delivery-log", app, "postback", postback.id)
    only_pending = body_of(console.get(url + "?state=pending"))
    assert only_pending.count('<tr class="waiting">') == 2
    assert only_pending.count("not yet tried of 4") == 2
    assert only_pending.count("Not attempted yet: waiting for a worker.") == 2
    assert "No entries of deliveries in that state" not in only_pending
    assert not DeliveryAttempt.objects.exists()


def subject_cells(body: str) -> list[str]:
    return [" ".join(re.sub(r"<[^>]+>", " ", cell).split())
            for cell in re.findall(r'<td class="subject">(.*?)</td>', body, re.S)]


def test_the_log_names_each_entrys_install_with_a_link_and_its_event(console, app):
    postback = make_postback(app, "https://fb.example/x", events=("install", "event"))
    install_id, event_install = uuid.uuid4(), uuid.uuid4()
    Delivery.objects.create(app=app, kind="postback", postback=postback, event_type="install",
                            source_id=str(install_id), install_id=install_id, body="{}",
                            max_attempts=4)
    Delivery.objects.create(app=app, kind="postback", postback=postback, event_type="event",
                            source_id="42", install_id=event_install, body="{}",
                            max_attempts=4, state="skipped", consent_note="Not sent.")
    body = body_of(console.get(page("delivery-log", app, "postback", postback.id)))
    for installed in (install_id, event_install):
        href = reverse("console:install-detail", args=[app.id, installed])
        assert f'<a href="{href}" title="Install {installed}">' in body
    assert sorted(subject_cells(body)) == sorted([
        f"Install {str(install_id)[:8]}…", f"Install {str(event_install)[:8]}… Event 42"])


def test_a_test_send_is_about_a_sample(console, app, receiver):
    postback = make_postback(app, receiver.url("/pb"))
    console.post(page("delivery-test", app, "postback", postback.id))
    body = body_of(console.get(page("delivery-log", app, "postback", postback.id)))
    assert subject_cells(body) == ["a sample"]


def test_a_bad_cursor_is_a_message_not_an_error_page(console, app):
    postback = make_postback(app, "https://fb.example/x")
    response = console.get(page("delivery-log", app, "postback", postback.id) + "?cursor=nope")
    assert response.status_code == 400
    assert "Invalid cursor" in body_of(response)


def test_redeliver_gives_a_failed_delivery_one_more_attempt(console, app):
    postback = make_postback(app, "https://fb.example/x")
    delivery = failed_delivery(app, postback, attempts=4)
    url = page("delivery-log", app, "postback", postback.id)
    response = console.post(page("delivery-redeliver", app, "postback", postback.id), {
        "delivery_id": [str(delivery.id), "not-a-uuid"], "back": "state=failed&limit=5"})
    assert response.status_code == 302
    assert response["Location"] == url + "?state=failed&limit=5"
    delivery.refresh_from_db()
    assert (delivery.state, delivery.max_attempts) == (State.PENDING, 5)


def test_redeliver_leaves_out_deliveries_of_other_configurations(console, app, outsider_app):
    postback = make_postback(app, "https://fb.example/x")
    other = make_postback(app, "https://other.example/x", media_source="other")
    foreign = make_postback(outsider_app, "https://fb.example/x")
    mine = failed_delivery(app, other)
    theirs = failed_delivery(outsider_app, foreign)
    response = console.post(page("delivery-redeliver", app, "postback", postback.id), {
        "delivery_id": [str(mine.id), str(theirs.id)]}, follow=True)
    assert "Nothing to redeliver" in body_of(response)
    assert Delivery.objects.filter(state=State.FAILED).count() == 2


# --- Scoping -------------------------------------------------------------------------------------

def test_another_organizations_configuration_is_not_found(console, app, outsider_app):
    foreign = make_postback(outsider_app, "https://fb.example/x")
    foreign_hook, _ = make_webhook(outsider_app, "https://hooks.example/x")
    assert console.get(page("deliveries", outsider_app)).status_code == 404
    for kind, config in (("postback", foreign), ("webhook", foreign_hook)):
        for name in ("delivery-edit", "delivery-log", "delivery-delete"):
            assert console.get(page(name, app, kind, config.id)).status_code == 404
            assert console.get(page(name, outsider_app, kind, config.id)).status_code == 404
        for name in ("delivery-active", "delivery-test", "delivery-delete",
                     "delivery-redeliver", "delivery-edit"):
            assert console.post(page(name, app, kind, config.id)).status_code == 404
    assert console.get(page("webhook-secret", app, foreign_hook.id)).status_code == 404
    assert PostbackConfig.objects.get(id=foreign.id).active is True
    assert not DeliveryAttempt.objects.exists()


def test_a_configuration_of_another_app_of_the_organization_is_not_found_here(console, app,
                                                                              owner):
    sibling = AppFactory(organization=owner.organization)
    postback = make_postback(sibling, "https://fb.example/x")
    assert console.get(page("delivery-edit", app, "postback", postback.id)).status_code == 404
    assert console.get(page("delivery-edit", sibling, "postback",
                            postback.id)).status_code == 200


def test_the_pages_need_a_login(client, app):
    postback = make_postback(app, "https://fb.example/x")
    response = client.post(page("delivery-active", app, "postback", postback.id))
    assert response.status_code == 302 and "/login" in response["Location"]
    assert PostbackConfig.objects.get(id=postback.id).active is True
