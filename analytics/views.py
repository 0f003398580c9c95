"""Analytics endpoints and the cost import (spec: Analytics endpoints). JWT, scoped to the
caller's organization: each view parses its parameters, calls one query, and serializes."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.response import Response

from analytics import cost_report, exports, fraud_report, queries, reading, rollups, services
from analytics.serializers import (
    EXPORT_TYPES,
    AttributionOutput,
    AttributionQuery,
    CampaignsOutput,
    CostImportInput,
    CostImportOutput,
    CostQuery,
    CostReportOutput,
    DashboardOutput,
    ExportQuery,
    FraudReportOutput,
    PeriodQuery,
    RetentionOutput,
    RevenueOutput,
    SourcesOutput,
)
from apps_registry.scoping import OrganizationScopedView
from attribution_site.capabilities import EDIT_MARKETING, READ
from attribution_site.replica import ReportReads

PERIOD_PARAMETERS = [
    OpenApiParameter("app_id", OpenApiTypes.UUID, required=True),
    OpenApiParameter("start_date", OpenApiTypes.STR, required=True, description=(
        "ISO 8601 date or date-time; reduced to its UTC day.")),
    OpenApiParameter("end_date", OpenApiTypes.STR, required=True, description=(
        "ISO 8601 date or date-time; reduced to its UTC day, which is included. At most "
        "ANALYTICS_MAX_RANGE_DAYS (366) days from start_date.")),
]


NOT_FOUND = OpenApiResponse(OpenApiTypes.OBJECT,
                            description="No such app in the caller's organization.")


@dataclass(frozen=True)
class Header:
    app_id: uuid.UUID
    start: date
    end: date
    currency: str
    data_through: datetime | None
    timezone: str = "UTC"


@dataclass(frozen=True)
class Answer:
    header: Header
    report: object


class AnalyticsView(ReportReads, OrganizationScopedView):
    """Reads its figures where reports read: the replica when there is one."""

    capability = READ

    query_serializer = PeriodQuery
    reads_rollups = True

    def period(self) -> tuple[queries.Period, str, dict]:
        """The validated range of the caller's app, its report currency and the parameters."""
        params = self.query_serializer(data=self.request.query_params)
        params.is_valid(raise_exception=True)
        app = self.get_app(params.validated_data["app_id"])
        self.app = app
        period, currency = reading.period_for_read(
            app_id=app.id, start=params.validated_data["start_date"],
            end=params.validated_data["end_date"], reads_rollups=self.reads_rollups)
        # Before the figures (analytics/reading.py): they then hold at least this much.
        self.data_through = (rollups.data_through(app_id=app.id) if self.reads_rollups
                             else None)
        return period, currency, params.validated_data

    def answer(self, output, period: queries.Period, currency: str, report) -> Response:
        header = Header(app_id=period.app_id, start=period.start, end=period.end,
                        currency=currency, data_through=self.data_through)
        return Response(output(Answer(header=header, report=report)).data)


class DashboardView(AnalyticsView):
    @extend_schema(parameters=PERIOD_PARAMETERS, responses={200: DashboardOutput, 404: NOT_FOUND})
    def get(self, request):
        period, currency, _ = self.period()
        report = queries.dashboard(period=period, currency=currency)
        return self.answer(DashboardOutput, period, currency, report)


class SourcesView(AnalyticsView):
    @extend_schema(parameters=PERIOD_PARAMETERS, responses={200: SourcesOutput, 404: NOT_FOUND})
    def get(self, request):
        period, currency, _ = self.period()
        report = queries.sources(period=period, currency=currency)
        return self.answer(SourcesOutput, period, currency, report)


class CampaignsView(AnalyticsView):
    @extend_schema(parameters=PERIOD_PARAMETERS, responses={200: CampaignsOutput, 404: NOT_FOUND})
    def get(self, request):
        period, currency, _ = self.period()
        report = queries.campaigns(period=period, currency=currency)
        return self.answer(CampaignsOutput, period, currency, report)


class RetentionView(AnalyticsView):
    @extend_schema(parameters=PERIOD_PARAMETERS, responses={200: RetentionOutput, 404: NOT_FOUND})
    def get(self, request):
        period, currency, _ = self.period()
        report = queries.retention(period=period, today=timezone.now().date())
        return self.answer(RetentionOutput, period, currency, report)


class RevenueView(AnalyticsView):
    @extend_schema(parameters=PERIOD_PARAMETERS, responses={200: RevenueOutput, 404: NOT_FOUND})
    def get(self, request):
        period, currency, _ = self.period()
        report = queries.revenue(period=period, currency=currency)
        return self.answer(RevenueOutput, period, currency, report)


class AttributionView(AnalyticsView):
    query_serializer = AttributionQuery

    @extend_schema(parameters=[*PERIOD_PARAMETERS, OpenApiParameter(
        "model", OpenApiTypes.STR, enum=list(queries.MODEL_COLUMNS), required=False,
        description="Default last-touch.")], responses={200: AttributionOutput, 404: NOT_FOUND})
    def get(self, request):
        period, currency, params = self.period()
        report = queries.attribution(period=period, currency=currency, model=params["model"])
        return self.answer(AttributionOutput, period, currency, report)


class FraudView(AnalyticsView):
    reads_rollups = False  # install rows: statuses change after the fact (fraud_report.py)

    @extend_schema(parameters=PERIOD_PARAMETERS, responses={200: FraudReportOutput, 404: NOT_FOUND})
    def get(self, request):
        period, currency, _ = self.period()
        return self.answer(FraudReportOutput, period, currency, fraud_report.fraud(period=period))


class CostView(AnalyticsView):
    query_serializer = CostQuery

    @extend_schema(parameters=[*PERIOD_PARAMETERS, OpenApiParameter(
        "group_by", OpenApiTypes.STR, enum=list(cost_report.GROUPINGS), required=False,
        description="Default campaign. Installs and revenue are null by adset and ad.")],
        responses={200: CostReportOutput, 404: NOT_FOUND})
    def get(self, request):
        period, currency, params = self.period()
        report = cost_report.cost_report(period=period, currency=currency,
                                         group_by=params["group_by"])
        return self.answer(CostReportOutput, period, currency, report)


class FirstRendererNegotiation(BaseContentNegotiation):
    """The export answers CSV whatever the Accept header says, and its errors answer JSON: a
    browser asking for text/csv must get the envelope, not a 406."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class ExportView(AnalyticsView):
    query_serializer = ExportQuery
    reads_rollups = False  # raw rows, straight from tracking's tables
    content_negotiation_class = FirstRendererNegotiation

    @extend_schema(
        parameters=[*PERIOD_PARAMETERS, OpenApiParameter(
            "type", OpenApiTypes.STR, enum=list(EXPORT_TYPES), required=True)],
        responses={(200, "text/csv"): OpenApiResponse(
            OpenApiTypes.STR, description="A streamed CSV attachment: a header row, then one "
            "row per record (columns in docs/metrics.md)."), 404: NOT_FOUND})
    def get(self, request):
        period, currency, params = self.period()
        return exports.csv_response(period=period, kind=params["type"], currency=currency,
                                    app_name=self.app.name)


class CostImportView(OrganizationScopedView):
    capability = EDIT_MARKETING

    @extend_schema(request=CostImportInput, responses={200: CostImportOutput, 404: NOT_FOUND})
    def post(self, request):
        payload = CostImportInput(data=request.data)
        payload.is_valid(raise_exception=True)
        app = self.get_app(payload.validated_data["app_id"])
        outcome = services.costs_import(app_id=app.id, rows=payload.validated_data["rows"])
        return Response(CostImportOutput(outcome).data)
