"""An iOS app's SKAN campaign mappings (docs/console.md, "SKAdNetwork pages"): which network
campaign each source identifier stands for, so the Cost page shows SKAN installs, CPI and ROAS
beside that campaign's spend. One line per mapping, `media source, source identifier, campaign
id`, replacing the whole set through the API's own parser (skan/api_views.py), so the console
and `PUT /api/v1/apps/{id}/skan/campaign-mappings` accept and refuse the same lists.
"""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render

from attribution_site.api.exceptions import ValidationFailed
from attribution_site.capabilities import EDIT_MARKETING, READ
from console.forms import FormProblem
from console.pages import AppPage
from console.views.conversion import IosOnly
from skan import selectors, services
from skan.api_views import CampaignMappingsInput

FIELDS = ("media_source", "source_identifier", "campaign_id")


def lines_as_body(text: str) -> dict:
    """The API's body from the textarea: comma-separated lines, blank ones skipped; a line
    without three parts keeps what it has, so the API names what is missing."""
    mappings = []
    for line in text.splitlines():
        if line.strip():
            parts = [part.strip() for part in line.split(",")]
            mappings.append(dict(zip(FIELDS, parts, strict=False)))
    return {"mappings": mappings}


def as_lines(rows) -> str:
    return "\n".join(f"{r.media_source}, {r.source_identifier}, {r.campaign_id}" for r in rows)


class SkanMappingsPage(AppPage, IosOnly):
    capability = {"GET": READ, "POST": EDIT_MARKETING}
    section = "conversion"
    template = "console/conversion/mappings.html"

    def get(self, request, app_id):
        return self.page(text=None)

    def post(self, request, app_id):
        text = request.POST.get("mappings", "")
        payload = CampaignMappingsInput(data=lines_as_body(text))
        if not payload.is_valid():
            error = ValidationFailed("Invalid input: mappings.", _by_line(payload.errors))
            return self.page(text=text, problem=FormProblem(error, {"mappings": "Mappings"}),
                             status=400)
        rows = services.campaign_mappings_replace(app_id=self.app.id,
                                                  mappings=payload.validated_data["mappings"])
        messages.success(request, f"Saved {len(rows)} mapping{'s' if len(rows) != 1 else ''}.")
        return redirect("console:skan-campaign-mappings-edit", app_id=self.app.id)

    def page(self, *, text: str | None, problem: FormProblem | None = None, status: int = 200):
        rows = list(selectors.campaign_mappings(app_id=self.app.id))
        return render(self.request, self.template, self.context(
            tab="mappings", rows=rows, text=as_lines(rows) if text is None else text,
            problem=problem), status=status)


def _by_line(errors: dict) -> dict:
    """The serializer's errors with items named as the textarea's lines (1-based)."""
    found = errors.get("mappings", [])
    if isinstance(found, dict):  # per item: {index: {field: [messages]}}
        return {"mappings": [f"Line {int(index) + 1}: {field.replace('_', ' ')}: {message}"
                             for index, item in found.items()
                             for field, messages_ in item.items() for message in messages_]}
    return {"mappings": [str(message) for message in found]}
