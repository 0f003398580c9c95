"""An app's SKAdNetwork conversion-value schema (docs/console.md, "Links and SKAdNetwork pages"):
the active version, every earlier one, and a new version saved from a JSON document. The document
is checked by the API's own parser (`conversion.serializers.schema_input`) and saved by its
service, so the console and `POST /api/v1/apps/{id}/conversion-schemas` accept and refuse exactly
the same schemas."""

from __future__ import annotations

import json

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from attribution_site.api.exceptions import ApiError, ValidationFailed, api_error
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
NOT_JSON = "The schema must be a JSON object: {\"currency\": …, \"windows\": [three windows]}."


def _document(schema) -> str:
    return json.dumps(values.schema_document(schema), indent=2, default=str)


class ConversionSchemaPage(AppPage):
    section = "conversion"
    template = "console/conversion/schema.html"

    def get(self, request, app_id):
        return self.page(text=None)

    def post(self, request, app_id):
        text = request.POST.get("schema", "")
        try:
            try:
                data = json.loads(text)
            except ValueError:
                raise ValidationFailed(NOT_JSON, {"schema": [NOT_JSON]}) from None
            try:
                schema = schema_input(data)
            except ValidationError as exc:
                raise api_error(exc) from None
            row = services.schema_version_create(app_id=self.app.id, schema=schema,
                                                 now=timezone.now())
        except ApiError as error:
            return self.page(text=text, problem=FormProblem(error), status=error.status)
        messages.success(request, f"Saved version {row.version}: new postbacks decode "
                                  "through it, and SDKs apply it from now on.")
        return redirect("console:conversion", app_id=self.app.id)

    def page(self, *, text: str | None, problem: FormProblem | None = None, status: int = 200):
        versions = list(reversed(selectors.schema_versions(app_id=self.app.id)))
        active = versions[0] if versions else None
        if text is None:
            text = _document(active.schema) if active else json.dumps(EXAMPLE, indent=2)
        earlier = [{"version": v.version, "created_at": v.created_at,
                    "document": _document(v.schema)} for v in versions[1:]]
        return render(self.request, self.template, self.context(
            active=active, active_document=_document(active.schema) if active else "",
            earlier=earlier, text=text, problem=problem,
            field_errors=[(name, lines) for name, lines in (problem.fields.items() if problem
                                                            else [])]),
            status=status)
