"""The organization's audit log (docs/teams.md, "Audit log"): entries newest first, filtered by
actor, action, since and until as the API filters them (the same parser, so the same field
errors), a page at a time by the same cursor; for the organization's admins only. Every value
is shown as text: an actor's email and the fields a person sent are theirs to type.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.http import QueryDict
from django.shortcuts import render
from django.utils.http import urlencode

from attribution_site.api.exceptions import ApiError
from attribution_site.capabilities import ADMINISTER
from audit import selectors
from audit.serializers import cursor_of, parse_audit_query
from console.forms import FormProblem
from console.pages import ConsolePage

FILTERS = ("actor", "action", "since", "until")


class AuditLogPage(ConsolePage):
    capability = ADMINISTER
    template = "console/audit/log.html"

    def get(self, request):
        params = QueryDict(mutable=True)
        for name in (*FILTERS, "cursor"):
            value = request.GET.get(name, "").strip()
            if value:
                params[name] = value
        filters = {name: params[name] for name in FILTERS if name in params}
        context = {"app": None, "apps": self.apps(), "values": filters, "entries": [],
                   "retention_days": settings.AUDIT_RETENTION_DAYS}
        try:
            query = parse_audit_query(params)
        except ApiError as error:
            return render(request, self.template, {**context, "problem": FormProblem(error)},
                          status=error.status)
        page = selectors.entries_page(organization_id=self.organization_id,
                                      filters=query.filters, limit=query.limit,
                                      before=query.before)
        cursor = cursor_of(page.next_position)
        return render(request, self.template, {
            **context,
            "entries": [(entry, _changes_text(entry.changes)) for entry in page.entries],
            "first_page": query.before is None,
            "older": urlencode({**filters, "cursor": cursor}) if cursor else None,
            "newest": urlencode(filters)})


def _changes_text(changes) -> str:
    """The fields as sent (secrets already `***`), one JSON line: shown in a <code>, as text."""
    return json.dumps(changes, ensure_ascii=False, sort_keys=True) if changes else ""
