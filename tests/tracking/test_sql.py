"""The hot-path lookups (tracking/sql.py): the PostgreSQL statements and the ORM fallbacks
return the same rows."""

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from tests.tracking.helpers import click_through, install_body
from tracking import selectors, sql

pytestmark = pytest.mark.django_db


def lookups(app):
    now = timezone.now()
    since = now - timedelta(days=7)
    first = sql.clicks_for_device(app_id=app.id, advertising_id="gaid-1", since=since,
                                  until=now)
    return {
        "device": first,
        "network": sql.clicks_for_network(app_id=app.id, ip_prefix="81.2.69.0/24",
                                          since=since, until=now),
        "by_id": sql.click_by_id(app_id=app.id, click_id=first[0].id, since=since, until=now),
        "install": selectors.install_for_device(app_id=app.id, device_id="gaid-1"),
        "link": sql.install_link_for_device(app_id=app.id, device_id="gaid-1"),
        "combined": sql.attribution_inputs(
            app_id=app.id, device_id="gaid-1", referrer_click_id=first[0].id,
            ip_prefix="81.2.69.0/24", since=since, until=now),
    }


def three_clicks_and_an_install(api, sdk, app):
    for n in range(3):
        click_through(api, app, pid=f"net{n}", advertising_id="gaid-1",
                      ip=f"81.2.69.{n + 10}")
    sdk.post("/api/v1/installs", install_body(app, device_id="gaid-1"), format="json")


def test_fast_and_orm_lookups_agree(api, sdk, app, monkeypatch):
    three_clicks_and_an_install(api, sdk, app)
    native = lookups(app)
    monkeypatch.setattr(sql, "_postgresql", lambda: False)
    orm = lookups(app)
    assert native == orm
    assert [c.media_source for c in native["device"]] == ["net2", "net1", "net0"]
    assert native["network"][0].ip == "81.2.69.12"
    assert native["install"] is not None and native["link"][0] == native["install"].id
    combined = native["combined"]
    assert combined.existing_install_id == native["install"].id
    assert combined.referrer_click == native["by_id"]
    assert combined.device_clicks == native["device"]
    assert combined.network_clicks == native["network"]


def test_prepared_and_plain_statements_agree(api, sdk, app, settings):
    three_clicks_and_an_install(api, sdk, app)
    prepared = lookups(app)
    settings.DATABASE_PREPARED_STATEMENTS = False
    assert lookups(app) == prepared


def test_candidate_rows_are_read_in_the_order_of_the_candidates_fields():
    from tracking.waterfall_inputs import ClickCandidate

    assert sql.CANDIDATE_FIELDS == ClickCandidate._fields


def test_a_repeat_install_reads_the_same_on_both_paths(api, sdk, app, monkeypatch):
    three_clicks_and_an_install(api, sdk, app)
    click_through(api, app, pid="again", advertising_id="gaid-1")
    sdk.post("/api/v1/installs", install_body(app, device_id="gaid-1"), format="json")
    install_id = selectors.install_for_device(app_id=app.id, device_id="gaid-1").id

    def read():
        install, latest = sql.install_for_repeat(install_id=install_id)
        return [getattr(install, f) for f in sql._REPEAT_FIELDS], latest

    native = read()
    monkeypatch.setattr(sql, "_postgresql", lambda: False)
    assert read() == native
    assert native[1] is not None  # the re-engagement's click


def test_an_event_batch_starts_alike_on_both_paths(api, sdk, app, monkeypatch):
    """The link, the claim and the ids: one statement on PostgreSQL, three steps elsewhere."""
    three_clicks_and_an_install(api, sdk, app)
    install = selectors.install_for_device(app_id=app.id, device_id="gaid-1")

    def start(event_ids):
        with transaction.atomic():
            return sql.event_batch_start(app_id=app.id, device_id="gaid-1",
                                         event_ids=event_ids, size=3)

    native = start({"a", "b"})
    monkeypatch.setattr(sql, "_postgresql", lambda: False)
    orm = start({"b", "c"})
    assert native.link == orm.link == (install.id, install.media_source, install.campaign_id,
                                       False)
    assert (native.claimed, orm.claimed) == ({"a", "b"}, {"c"})  # b was the first's
    if connection.vendor == "postgresql":
        assert len(native.ids) == 3 and native.ids == sorted(set(native.ids))
    assert orm.ids == []
    unknown = sql.event_batch_start(app_id=app.id, device_id=None, event_ids=set(), size=0)
    assert (unknown.link, unknown.claimed) == (None, set())
