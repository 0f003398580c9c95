"""An app's SKAdNetwork conversion-value schema (docs/console.md, "SKAdNetwork pages"): the
active version, every earlier one, and a new version saved from a form of rule rows, or, as an
advanced option, from a JSON document. Either way the body goes through the API's own parser
(`conversion.serializers.schema_input`) and is saved by its service, so the console and
`POST /api/v1/apps/{id}/conversion-schemas` accept and refuse exactly the same schemas; the
form (`console/schema_form.py`) only turns rows into that body and puts the API's messages
back beside the rows. SKAdNetwork is Apple's: the pages answer for iOS apps only.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views import View
from rest_framework.exceptions import ValidationError

from apps_registry.models import Platform
from attribution_site.api.exceptions import ApiError, ValidationFailed, api_error
from attribution_site.capabilities import CONFIGURE, READ
from console import schema_form
from console.forms import FormProblem
from console.pages import AppPage
from conversion import selectors, services, values
from conversion.serializers import schema_input

# A first version to start from: purchases by revenue in window 0, any purchase later.
EXAMPLE = {"currency": "USD", "windows": [
    {"lock_window": False, "rules": [
        {"event_name": "purchase", "min_revenue": "0", "max_revenue": "5", "fine": 10,
         "coarse": "low"},
        {"event_name": "purchase", "min_revenue": "5", "max_revenue": "20", "fine": 20,
         "coarse": "medium"},
        {"event_name": "purchase", "min_revenue": "20", "fine": 30, "coarse": "high"}]},
    {"lock_window": False, "rules": [{"event_name": "purchase", "coarse": "medium"}]},
    {"lock_window": True, "rules": [{"event_name": "purchase", "coarse": "high"}]}]}
NOT_AN_OBJECT = "The schema must be a JSON object: {\"currency\": …, \"windows\": [three windows]}."
IOS_ONLY_TEMPLATE = "console/conversion/ios_only.html"
INPUT_LABELS = {"event_name": "event", "min_count": "minimum count",
                "min_revenue": "minimum revenue", "max_revenue": "maximum revenue",
                "fine": "fine value", "coarse": "coarse value"}


def window_labels() -> list[str]:
    """"Days 0-2", "Days 3-7", "Days 8-35": Apple's windows, from where each one ends."""
    ends = [end.days for end in values.WINDOW_ENDS]
    return [f"Days {ends[n - 1] + 1 if n else 0}-{end}" for n, end in enumerate(ends)]


class IosOnly(View):
    """SKAdNetwork pages answer for iOS apps only; another platform's app gets a page that
    says so (a GET is answered, a POST saves nothing: 409). Listed after `AppPage` in a page's
    bases, so this runs once the user is logged in and `self.app` is looked up."""

    def dispatch(self, request, *args, **kwargs):
        if self.app.platform != Platform.IOS:
            return render(request, IOS_ONLY_TEMPLATE, self.context(),
                          status=200 if request.method in ("GET", "HEAD") else 409)
        return super().dispatch(request, *args, **kwargs)


def _document(schema: values.Schema) -> str:
    return json.dumps(values.schema_document(schema), indent=2, default=str)


def json_body(text: str) -> object:
    """The JSON the text holds; a syntax error says where it is."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        message = (f"Not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}. "
                   + NOT_AN_OBJECT)
        raise ValidationFailed("The JSON could not be read.", {"schema": [message]}) from None


class ConversionSchemaPage(AppPage, IosOnly):
    capability = {"GET": READ, "POST": CONFIGURE}
    section = "conversion"
    tab = "schema"
    template = "console/conversion/schema.html"

    def get(self, request, app_id):
        return self.page(form=schema_form.with_blank_rows(self.starting_form()))

    def post(self, request, app_id):
        action = request.POST.get("action", "save")
        if action == "json":
            return self.save_json(request.POST.get("schema", ""))
        form = schema_form.form_from_post(request.POST)
        kind, _, where = action.partition(":")
        place = [int(part) for part in where.split(":") if part.isdigit()]
        if kind == "add" and len(place) == 1:
            return self.page(form=schema_form.rows_added(form, window=place[0]))
        if kind == "remove" and len(place) == 2:
            return self.page(form=schema_form.row_removed(form, window=place[0], row=place[1]))
        body, positions = schema_form.schema_body(form)
        try:
            row = self.save(body)
        except ApiError as error:
            problem = FormProblem(error, self.labels())
            return self.page(form=form, problem=problem, status=error.status,
                             placed=schema_form.errors_placed(problem.fields, positions))
        return self.saved(row)

    def save_json(self, text: str):
        try:
            row = self.save(json_body(text))
        except ApiError as error:
            return self.page(form=schema_form.with_blank_rows(self.starting_form()),
                             text=text, problem=FormProblem(error, self.labels()),
                             status=error.status)
        return self.saved(row)

    def save(self, body: object):
        try:
            schema = schema_input(body)
        except ValidationError as exc:
            raise api_error(exc) from None
        return services.schema_version_create(app_id=self.app.id, schema=schema,
                                              now=timezone.now())

    def saved(self, row):
        messages.success(self.request, f"Saved version {row.version}: new postbacks decode "
                                       "through it, and SDKs apply it from now on.")
        return redirect("console:conversion", app_id=self.app.id)

    def starting_form(self) -> schema_form.SchemaForm:
        active = selectors.active_schema(app_id=self.app.id)
        document = values.schema_document(active.schema) if active else EXAMPLE
        return schema_form.form_from_document(document)

    def labels(self) -> dict[str, str]:
        return {"currency": "Currency", "schema": "Schema (JSON)",
                **{f"windows[{n}]": label for n, label in enumerate(window_labels())}}

    def page(self, *, form: schema_form.SchemaForm, text: str | None = None,
             problem: FormProblem | None = None, status: int = 200,
             placed: schema_form.PlacedErrors | None = None):
        versions = list(reversed(selectors.schema_versions(app_id=self.app.id)))
        active = versions[0] if versions else None
        placed = placed or schema_form.PlacedErrors()
        if text is None:
            text = _document(active.schema) if active else json.dumps(EXAMPLE, indent=2)
        earlier = [{"version": v.version, "created_at": v.created_at,
                    "document": _document(v.schema)} for v in versions[1:]]
        json_errors = [(name, lines) for name, lines in problem.fields.items()] if (
            problem and self.request.POST.get("action") == "json") else []
        return render(self.request, self.template, self.context(
            tab=self.tab, active=active,
            active_document=_document(active.schema) if active else "",
            earlier=earlier, text=text, problem=problem, json_errors=json_errors,
            currency=form.currency, currency_errors=placed.currency,
            form_errors=placed.general, windows=_windows(form, placed),
            too_many_rows=form.row_count > schema_form.MAX_FORM_ROWS,
            coarse_values=values.COARSE_VALUES, fine_min=values.FINE_MIN,
            fine_max=values.FINE_MAX, max_form_rows=schema_form.MAX_FORM_ROWS,
            max_rules=values.MAX_RULES_PER_WINDOW), status=status)


def _windows(form: schema_form.SchemaForm, placed: schema_form.PlacedErrors) -> list[dict]:
    """Each window's rows ready to print: every input's name, value and messages."""
    windows = []
    for w, (window, label) in enumerate(zip(form.windows, window_labels(), strict=True)):
        inputs = [name for name in schema_form.RULE_INPUTS if w == 0 or name != "fine"]
        rows = []
        for r, row in enumerate(window.rows):
            cells = [{"name": name, "label": INPUT_LABELS[name],
                      "input": schema_form.input_name(w, r, name),
                      "value": getattr(row, name),
                      "errors": placed.cells.get((w, r, name), [])} for name in inputs]
            rows.append({"index": r, "number": r + 1, "cells": cells,
                         "errors": placed.rows.get((w, r), []),
                         "invalid": any(cell["errors"] for cell in cells)
                         or bool(placed.rows.get((w, r)))})
        windows.append({"index": w, "label": label, "lock_window": window.lock_window,
                        "rows": rows, "count": len(window.rows),
                        "errors": placed.windows.get(w, []),
                        "can_add": schema_form.can_add(form, w)})
    return windows
