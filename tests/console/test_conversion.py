"""The conversion-value schema page (docs/console.md, "SKAdNetwork pages"): a form of rule rows
per window saved through the API's own parser and service (the same stored schema as the API's
for the same rules), errors beside the row they are about, rows added and removed without
JavaScript, the JSON option with a syntax error's line and column, iOS apps only, scoping, text
only."""

from __future__ import annotations

import copy
import json
import re

import pytest

from conversion.models import ConversionSchema
from tests.console.helpers import XSS_CAMPAIGN, assert_shown_as_text
from tests.conversion.samples import SCHEMA
from tests.factories import AppFactory

pytestmark = pytest.mark.django_db

FIELDS = ("event_name", "min_count", "min_revenue", "max_revenue", "fine", "coarse")


@pytest.fixture
def ios_app(owner):
    return AppFactory(organization=owner.organization, platform="ios", package_name=None,
                      play_store_url=None, bundle_id="com.example.game")


def page(app):
    return f"/console/apps/{app.id}/conversion-schema"


def form_post(schema: dict, *, blank_rows: int = 2, action: str = "save") -> dict:
    """What a browser posts for `schema` typed into the form, with empty rows under each
    window's rules as the page offers them."""
    data = {"currency": schema.get("currency", ""), "action": action}
    for w, window in enumerate(schema["windows"]):
        rules = window["rules"] + [{}] * blank_rows
        data[f"w{w}-rows"] = str(len(rules))
        if window.get("lock_window"):
            data[f"w{w}-lock_window"] = "on"
        for r, rule in enumerate(rules):
            for name in FIELDS:
                if name == "fine" and w:
                    continue  # the form has no fine input after the first window
                value = rule.get(name)
                data[f"w{w}-r{r}-{name}"] = "" if value is None else str(value)
    return data


def input_value(html: str, name: str) -> str | None:
    match = re.search(rf'<input[^>]*name="{re.escape(name)}"[^>]*value="([^"]*)"', html)
    return match[1] if match else None


def stored(app) -> list[tuple[int, str, dict]]:
    return [(row.version, row.currency, row.document)
            for row in ConversionSchema.objects.filter(app=app).order_by("version")]


# --- The form ---------------------------------------------------------------------------------

def test_an_app_without_a_schema_starts_from_the_example_as_rows(console, ios_app):
    html = console.get(page(ios_app)).content.decode()
    assert "No schema yet" in html
    assert input_value(html, "w0-r0-event_name") == "purchase"
    assert input_value(html, "w0-r2-min_revenue") == "20"
    assert input_value(html, "w0-r2-fine") == "30"
    assert input_value(html, "w0-rows") == "5"  # three rules and two empty rows
    assert input_value(html, "w0-r3-event_name") == ""
    assert 'name="w2-lock_window" checked' in html
    assert 'name="w1-r0-fine"' not in html  # fine values are the first window's only


def test_the_form_stores_the_same_schema_the_api_stores_for_the_same_rules(console, owner_api,
                                                                            owner, ios_app):
    other = AppFactory(organization=owner.organization, platform="ios", package_name=None,
                       play_store_url=None, bundle_id="com.example.other")
    api = owner_api.post(f"/api/v1/apps/{other.id}/conversion-schemas", SCHEMA, format="json")
    assert api.status_code == 201

    response = console.post(page(ios_app), form_post(SCHEMA))
    assert response.status_code == 302
    assert stored(ios_app) == stored(other)
    assert console.get(page(ios_app)).content.decode().count("Saved version 1") == 1


def test_a_saved_schema_comes_back_in_the_form_and_saves_unchanged(console, owner_api,
                                                                  ios_app):
    owner_api.post(f"/api/v1/apps/{ios_app.id}/conversion-schemas", SCHEMA, format="json")
    html = console.get(page(ios_app)).content.decode()
    assert input_value(html, "w0-r2-min_revenue") == "0.01"
    assert input_value(html, "w0-r2-max_revenue") == "5"
    assert input_value(html, "w0-r0-min_count") == ""  # the default, not "1"
    assert 'name="w0-lock_window" checked' in html

    assert console.post(page(ios_app), form_post(SCHEMA)).status_code == 302
    (_, _, first), (version, _, second) = stored(ios_app)
    assert (version, second) == (2, first)
    html = console.get(page(ios_app)).content.decode()
    assert "Active: version 2" in html and "Version 1, saved" in html  # versions as before


def test_a_bad_field_is_shown_beside_its_input_on_the_row_it_was_typed_in(console, ios_app):
    bad = copy.deepcopy(SCHEMA)
    bad["windows"][0]["rules"].insert(0, {})  # an empty row first: rules shift, rows do not
    bad["windows"][0]["rules"][2]["fine"] = 64
    bad["windows"][1]["rules"][1]["min_revenue"] = "lots"
    response = console.post(page(ios_app), form_post(bad))
    assert response.status_code == 400
    html = response.content.decode()
    assert re.search(r'<ul class="errors" id="err_w0-r2-fine"><li>Required in window 0: an '
                     r"integer from 0 to 63.</li>", html)
    assert re.search(r'name="w0-r2-fine" value="64"[^>]*aria-invalid="true"', html)
    assert re.search(r'id="err_w1-r1-min_revenue"><li>When given: a number', html)
    assert "Please check Days 0-2, Days 3-7: see the message beside each field." in html
    assert input_value(html, "w1-r1-min_revenue") == "lots"  # what was typed stays
    assert not ConversionSchema.objects.exists()


def test_overlapping_ranges_are_shown_on_the_later_row_naming_the_other_by_row(console, ios_app):
    bad = copy.deepcopy(SCHEMA)
    bad["windows"][1]["rules"][2]["min_revenue"] = 5  # [5, ∞) overlaps [0.01, 10)
    response = console.post(page(ios_app), form_post(bad))
    assert response.status_code == 400
    html = response.content.decode()
    # the API's "rule 1" (its index in the body) is the form's second row
    assert re.search(r'id="err_w1-r2"><li>Its revenue range overlaps row 2&#x27;s on the same '
                     r"events", html)
    assert not ConversionSchema.objects.exists()


def test_a_currency_that_does_not_exist_is_refused_beside_the_field(console, ios_app):
    response = console.post(page(ios_app), form_post({**SCHEMA, "currency": "XYZ"}))
    assert response.status_code == 400
    html = response.content.decode()
    assert "Please check Currency: see the message beside each field." in html
    assert re.search(r'id="err_currency"><li>Must be an ISO 4217 code such as USD.', html)
    assert not ConversionSchema.objects.exists()


def test_empty_rows_are_no_rules_and_a_window_may_have_none(console, ios_app):
    schema = copy.deepcopy(SCHEMA)
    schema["windows"][2]["rules"] = []
    assert console.post(page(ios_app), form_post(schema, blank_rows=4)).status_code == 302
    (_, _, document), = stored(ios_app)
    assert [len(window["rules"]) for window in document["windows"]] == [5, 3, 0]


def test_add_rows_shows_three_more_empty_rows_and_saves_nothing(console, ios_app):
    data = form_post(SCHEMA, action="add:1")
    data["w1-r0-event_name"] = "level_up"  # typed, not saved yet
    response = console.post(page(ios_app), data)
    assert response.status_code == 200
    html = response.content.decode()
    assert input_value(html, "w1-rows") == "8"  # three rules, two empty rows, three added
    assert input_value(html, "w1-r7-event_name") == ""
    assert input_value(html, "w1-r0-event_name") == "level_up"
    assert input_value(html, "w0-rows") == "7"
    assert not ConversionSchema.objects.exists()


def test_remove_drops_that_row_and_keeps_the_others(console, ios_app):
    response = console.post(page(ios_app), form_post(SCHEMA, action="remove:0:1"))
    assert response.status_code == 200
    html = response.content.decode()
    assert input_value(html, "w0-rows") == "6"
    assert input_value(html, "w0-r1-event_name") == "purchase"  # the tutorial row is gone
    assert "tutorial_complete" not in html.split('id="json"')[0]
    assert not ConversionSchema.objects.exists()


def test_the_row_buttons_work_without_javascript_and_enter_saves(console, ios_app):
    html = console.get(page(ios_app)).content.decode()
    form = html.split('id="schema-form"', 1)[1]
    first_button = re.search(r'<button type="submit" name="action" value="([^"]+)"', form)
    assert first_button[1] == "save"  # Enter in a field submits the first submit button
    assert re.search(r'<button type="submit" name="action" value="add:1"[^>]*'
                     r'formaction="[^"]*#window-1"[^>]*hx-post=', form)
    assert 'value="remove:0:0"' in form


def test_a_row_count_beyond_what_the_form_offers_is_cut(console, ios_app):
    data = form_post(SCHEMA, action="add:0")
    data["w0-rows"] = "100000"
    response = console.post(page(ios_app), data)
    assert response.status_code == 200
    assert input_value(response.content.decode(), "w0-rows") == "64"


def test_event_names_in_a_schema_are_shown_as_text(console, ios_app):
    hostile = copy.deepcopy(SCHEMA)
    hostile["windows"][1]["rules"][1]["event_name"] = XSS_CAMPAIGN
    assert console.post(page(ios_app), form_post(hostile)).status_code == 302
    html = console.get(page(ios_app)).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert_shown_as_text(html)
    hostile["windows"][0]["rules"][1]["fine"] = 99
    assert_shown_as_text(console.post(page(ios_app), form_post(hostile)).content.decode())


# --- JSON, the advanced option ----------------------------------------------------------------

def test_a_json_document_saves_a_version(console, ios_app):
    response = console.post(page(ios_app), {"action": "json", "schema": json.dumps(SCHEMA)})
    assert response.status_code == 302
    assert [version for version, _, _ in stored(ios_app)] == [1]


def test_a_json_syntax_error_says_its_line_and_column(console, ios_app):
    text = '{\n  "currency": "USD",\n  "windows": [}\n}'
    response = console.post(page(ios_app), {"action": "json", "schema": text})
    assert response.status_code == 400
    html = response.content.decode()
    assert re.search(r'id="err_schema"><li>Not valid JSON at line 3, column 15: '
                     r"Expecting value", html)
    assert "&quot;windows&quot;: [}" in html  # what was typed stays
    assert "<details open" in html
    assert not ConversionSchema.objects.exists()


def test_the_console_and_the_api_refuse_the_same_json(console, owner_api, ios_app):
    bad = copy.deepcopy(SCHEMA)
    del bad["windows"][2]
    bad["windows"][0]["rules"][0]["fine"] = 64
    api = owner_api.post(f"/api/v1/apps/{ios_app.id}/conversion-schemas", bad, format="json")
    answer = console.post(page(ios_app), {"action": "json", "schema": json.dumps(bad)})
    assert api.status_code == answer.status_code == 400
    html = answer.content.decode()
    for field, messages in api.json()["error"]["details"].items():
        assert f"<code>{field}</code>: {messages[0]}" in html
    assert not ConversionSchema.objects.exists()


# --- iOS only, scoping ------------------------------------------------------------------------

def test_the_nav_offers_skadnetwork_for_ios_apps(console, ios_app):
    html = console.get(f"/console/apps/{ios_app.id}/keys").content.decode()
    assert f'href="/console/apps/{ios_app.id}/skan">SKAdNetwork</a>' in html


@pytest.mark.parametrize("platform", ["android", "web"])
def test_other_platforms_have_no_nav_entry_and_the_page_says_ios_only(console, owner, platform):
    app = AppFactory(organization=owner.organization, platform=platform,
                     domain="shop.example" if platform == "web" else None)
    html = console.get(f"/console/apps/{app.id}/keys").content.decode()
    assert "SKAdNetwork" not in html
    response = console.get(page(app))
    assert response.status_code == 200
    assert "SKAdNetwork is for iOS apps" in response.content.decode()
    refused = console.post(page(app), form_post(SCHEMA))
    assert refused.status_code == 409
    assert "SKAdNetwork is for iOS apps" in refused.content.decode()
    assert not ConversionSchema.objects.exists()


def test_another_organizations_app_is_a_404(console, outsider):
    theirs = AppFactory(organization=outsider.organization, platform="ios", package_name=None,
                        play_store_url=None, bundle_id="com.example.theirs")
    assert console.get(page(theirs)).status_code == 404
    assert console.post(page(theirs), form_post(SCHEMA)).status_code == 404
    assert console.post(page(theirs), {"action": "json",
                                       "schema": json.dumps(SCHEMA)}).status_code == 404
    assert not ConversionSchema.objects.exists()


def test_a_schema_larger_than_the_form_is_offered_as_json_only(console, owner_api, ios_app):
    big = {"currency": "USD", "windows": [
        {"rules": [{"event_name": f"level_{n}", "fine": n, "coarse": "low"}
                   for n in range(64)]},
        {"rules": [{"event_name": f"level_{n}", "coarse": "low"} for n in range(64)]},
        {"rules": [{"event_name": f"level_{n}", "coarse": "low"} for n in range(64)]}]}
    assert owner_api.post(f"/api/v1/apps/{ios_app.id}/conversion-schemas", big,
                          format="json").status_code == 201
    html = console.get(page(ios_app)).content.decode()
    assert "This schema has more rules than the form holds (150)" in html
    assert 'id="schema-form"' not in html and '<details open id="json">' in html
