"""GET /api/v1/analytics/web-to-app (docs/web.md, "Web to app"): a web app's banner views,
clicks and dismissals, the app installs its banner brought and the installs joined by customer
id, by visit source."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from analytics.serializers import DayParameter, PeriodQuery
from apps_registry.scoping import OrganizationScopedView
from attribution_site.api.exceptions import ValidationFailed
from attribution_site.capabilities import READ
from web_to_app import report, selectors

DEFAULT_DAYS = 30


class WebToAppQuery(PeriodQuery):
    start_date = DayParameter(required=False)
    end_date = DayParameter(required=False)

    def validate(self, attrs):
        end = attrs.get("end_date") or timezone.now().astimezone(UTC).date()
        attrs.update(end_date=end,
                     start_date=attrs.get("start_date") or end - timedelta(days=DEFAULT_DAYS - 1))
        return super().validate(attrs)


class WebToAppRow(serializers.Serializer):
    visit_media_source = serializers.CharField(required=False)
    banner_views = serializers.IntegerField()
    banner_clicks = serializers.IntegerField()
    banner_dismissals = serializers.IntegerField()
    installs_from_banner = serializers.IntegerField()
    installs_joined_by_customer_id = serializers.IntegerField()
    click_rate = serializers.FloatField(allow_null=True)
    install_rate = serializers.FloatField(allow_null=True)


def web_to_app_report(*, web_app_id, start: date, end: date) -> dict:
    """The report's body for the days [start, end] (UTC), both included."""
    since = datetime.combine(start, time.min, tzinfo=UTC)
    until = datetime.combine(end + timedelta(days=1), time.min, tzinfo=UTC)
    rows = report.rows_of(selectors.report_counts(web_app_id=web_app_id, since=since,
                                                  until=until))
    return {"app_id": str(web_app_id), "start_date": start.isoformat(),
            "end_date": end.isoformat(), "total": report.row_answer(report.total_of(rows)),
            "by_visit_source": [{"visit_media_source": row.visit_media_source,
                                 **report.row_answer(row)} for row in rows]}


class WebToAppView(OrganizationScopedView):
    capability = READ

    @extend_schema(
        operation_id="analytics_web_to_app",
        parameters=[OpenApiParameter("app_id", str, required=True, description="A web app."),
                    OpenApiParameter("start_date", str, description="Default: 29 days before "
                                     "end_date."),
                    OpenApiParameter("end_date", str, description="Default: today (UTC).")],
        responses={200: inline_serializer("WebToAppReport", {
            "app_id": serializers.UUIDField(), "start_date": serializers.DateField(),
            "end_date": serializers.DateField(), "total": WebToAppRow(),
            "by_visit_source": WebToAppRow(many=True)})})
    def get(self, request):
        params = WebToAppQuery(data=request.query_params)
        params.is_valid(raise_exception=True)
        app = self.get_app(params.validated_data["app_id"])
        if app.platform != "web":
            raise ValidationFailed("Invalid input: app_id.", {"app_id": [
                "Must be a web app: the report follows a web app's visitors to its apps."]})
        return Response(web_to_app_report(web_app_id=app.id,
                                          start=params.validated_data["start_date"],
                                          end=params.validated_data["end_date"]))
