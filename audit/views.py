"""`GET /api/v1/org/audit-log` (docs/teams.md, "Audit log"): the organization's entries,
newest first, for its admins. Read-only: no method here or anywhere changes an entry."""

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from apps_registry.scoping import OrganizationScopedView
from attribution_site.capabilities import ADMINISTER
from audit import selectors
from audit.serializers import EntryOutput, cursor_of, parse_audit_query

AUDIT_QUERY = [
    OpenApiParameter("actor", str, description="a member's id or email"),
    OpenApiParameter("action", str, description="an action (postbacks.create) or a resource "
                     "(postbacks: all of its actions)"),
    OpenApiParameter("since", str, description="ISO 8601 date-time, inclusive"),
    OpenApiParameter("until", str, description="ISO 8601 date-time, exclusive"),
    OpenApiParameter("limit", int, description="1 to 500, default 50"),
    OpenApiParameter("cursor", str, description="next_cursor of the previous page"),
]


class AuditLogView(OrganizationScopedView):
    capability = ADMINISTER

    @extend_schema(operation_id="audit_log_list", parameters=AUDIT_QUERY,
                   responses={200: inline_serializer("AuditLog", {
                       "entries": EntryOutput(many=True),
                       "next_cursor": serializers.CharField(allow_null=True)})})
    def get(self, request):
        query = parse_audit_query(request.query_params)
        page = selectors.entries_page(organization_id=self.organization_id,
                                      filters=query.filters, limit=query.limit,
                                      before=query.before)
        return Response({"entries": EntryOutput(page.entries, many=True).data,
                         "next_cursor": cursor_of(page.next_position)})
