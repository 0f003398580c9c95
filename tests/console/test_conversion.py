"""The conversion-value schema page: the active version and the earlier ones, a new version
saved from JSON through the API's own parser (errors named by path), scoping, text only."""

from __future__ import annotations

import json

import pytest

from console.views.conversion import EXAMPLE
from conversion.models import ConversionSchema
from tests.console.conftest import XSS_CAMPAIGN, assert_shown_as_text

pytestmark = pytest.mark.django_db


def page(app):
    return f"/console/apps/{app.id}/conversion-schema"


def test_an_app_without_a_schema_starts_from_the_example(console, app):
    html = console.get(page(app)).content.decode()
    assert "No schema yet" in html
    assert "&quot;purchase&quot;" in html  # the example, as text in the textarea


def test_the_example_is_a_valid_first_version(console, app):
    response = console.post(page(app), {"schema": json.dumps(EXAMPLE)})
    assert response.status_code == 302
    assert ConversionSchema.objects.get(app=app).version == 1
    html = console.get(page(app)).content.decode()
    assert "Active: version 1" in html and "Saved version 1" in html


def test_a_second_version_keeps_the_first_under_earlier_versions(console, app):
    console.post(page(app), {"schema": json.dumps(EXAMPLE)})
    changed = json.loads(json.dumps(EXAMPLE))
    changed["windows"][0]["rules"][0]["fine"] = 11
    assert console.post(page(app), {"schema": json.dumps(changed)}).status_code == 302
    html = console.get(page(app)).content.decode()
    assert "Active: version 2" in html and "Version 1, saved" in html
    assert list(ConversionSchema.objects.filter(app=app).values_list("version", flat=True)
                .order_by("version")) == [1, 2]


def test_text_that_is_not_json_is_refused_beside_the_field(console, app):
    response = console.post(page(app), {"schema": "{not json"})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="err_schema"' in html and "must be a JSON object" in html
    assert "{not json" in html  # what was typed stays
    assert not ConversionSchema.objects.exists()


def test_each_problem_of_the_schema_is_named_by_its_path(console, app):
    bad = json.loads(json.dumps(EXAMPLE))
    bad["windows"][0]["rules"][0]["fine"] = 64
    bad["windows"][1]["rules"][0]["fine"] = 3
    response = console.post(page(app), {"schema": json.dumps(bad)})
    assert response.status_code == 400
    html = response.content.decode()
    assert "windows[0].rules[0].fine" in html and "windows[1].rules[0].fine" in html
    assert not ConversionSchema.objects.exists()


def test_the_console_and_the_api_refuse_the_same_schema(console, owner_api, app):
    bad = json.loads(json.dumps(EXAMPLE))
    del bad["windows"][2]
    api = owner_api.post(f"/api/v1/apps/{app.id}/conversion-schemas", bad, format="json")
    console_answer = console.post(page(app), {"schema": json.dumps(bad)})
    assert api.status_code == console_answer.status_code == 400
    for field in api.json()["error"]["details"]:
        assert field in console_answer.content.decode()


def test_another_organizations_app_is_a_404(console, outsider_app):
    assert console.get(page(outsider_app)).status_code == 404
    assert console.post(page(outsider_app),
                        {"schema": json.dumps(EXAMPLE)}).status_code == 404
    assert not ConversionSchema.objects.exists()


def test_event_names_in_a_schema_are_shown_as_text(console, app):
    hostile = json.loads(json.dumps(EXAMPLE))
    hostile["windows"][1]["rules"][0]["event_name"] = XSS_CAMPAIGN
    response = console.post(page(app), {"schema": json.dumps(hostile)})
    html = (console.get(page(app)) if response.status_code == 302 else response)
    assert_shown_as_text(html.content.decode())


def test_a_schema_in_a_currency_that_does_not_exist_is_refused_beside_the_field(console, app):
    bad = {**json.loads(json.dumps(EXAMPLE)), "currency": "XYZ"}
    response = console.post(page(app), {"schema": json.dumps(bad)})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Please check Currency: see the message beside each field." in html
    assert "Must be an ISO 4217 code such as USD." in html
    assert not ConversionSchema.objects.exists()
