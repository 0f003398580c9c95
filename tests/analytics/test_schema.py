"""The OpenAPI schema lists every analytics endpoint with its field names."""

import json

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(api):
    response = api.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return json.loads(response.content)


def properties(schema, name):
    return list(schema["components"]["schemas"][name]["properties"])


def test_every_analytics_endpoint_is_documented(schema):
    for endpoint in ("dashboard", "sources", "campaigns", "retention", "revenue",
                     "attribution", "export"):
        operation = schema["paths"][f"/api/v1/analytics/{endpoint}"]["get"]
        names = {p["name"] for p in operation["parameters"]}
        assert {"app_id", "start_date", "end_date"} <= names
        assert {"200", "400", "401", "404"} <= set(operation["responses"])
    assert "post" in schema["paths"]["/api/v1/costs"]


def test_the_dashboard_uses_the_specs_names(schema):
    assert {"kpis", "timeSeries", "timezone", "currency"} <= set(
        properties(schema, "DashboardOutput"))
    assert properties(schema, "KpisOutput")[:6] == [
        "total_installs", "paid_installs", "organic_installs", "total_revenue", "average_cpi",
        "conversion_rate"]
    assert properties(schema, "DayOutput") == [
        "date", "installs", "paid_installs", "organic_installs", "revenue"]


def test_open_field_names_are_listed(schema):
    assert {"installs", "clicks", "conversion_rate", "revenue", "cost", "cpi", "roas"} <= set(
        properties(schema, "SourceOutput"))
    assert "campaign_id" in properties(schema, "CampaignOutput")
    assert {"d1", "d7", "d30"} <= set(properties(schema, "CohortOutput"))
    assert {"total_revenue", "arpu", "ltv", "by_source"} <= set(
        properties(schema, "RevenueOutput"))
    assert {"credited_installs", "credited_revenue"} <= set(properties(schema,
                                                                       "CreditedOutput"))


def test_the_export_is_described_as_csv(schema):
    responses = schema["paths"]["/api/v1/analytics/export"]["get"]["responses"]
    assert list(responses["200"]["content"]) == ["text/csv"]
    assert list(responses["400"]["content"]) == ["application/json"]
