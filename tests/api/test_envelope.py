"""The envelope holds for every response of /api/, including Django's own errors."""

import pytest
from django.test import override_settings
from django.urls import path
from rest_framework.views import APIView

from attribution_site.urls import urlpatterns as real_urlpatterns


class Boom(APIView):
    authentication_classes: list = []
    permission_classes: list = []

    def get(self, request):
        raise RuntimeError("kaboom: secret detail")


def django_boom(request):
    raise RuntimeError("kaboom from a plain Django view")


urlpatterns = [
    path("api/v1/test-boom", Boom.as_view()),
    path("api/v1/test-django-boom", django_boom),
    *real_urlpatterns,
]


@pytest.fixture
def boom_urls(settings):
    settings.ROOT_URLCONF = "tests.api.test_envelope"
    settings.DEBUG = False


@pytest.mark.django_db
def test_unknown_api_path_is_enveloped_404(api):
    response = api.get("/api/v1/nothing-here")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["error"]["code"] == "NOT_FOUND"


@pytest.mark.django_db
def test_wrong_method_is_enveloped_405_with_allow(owner_api):
    response = owner_api.patch("/api/v1/apps", {}, format="json")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
    assert "GET" in response["Allow"]


@pytest.mark.django_db
def test_malformed_json_is_validation_error(owner_api):
    response = owner_api.post("/api/v1/apps", data="{not json", content_type="application/json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert "body" in error["details"]


@pytest.mark.django_db
def test_non_object_json_body_is_validation_error(owner_api):
    response = owner_api.post("/api/v1/apps", data="[1, 2]", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["details"]["non_field_errors"]


APP = "5b0c7a4e-3f1d-4c2b-9a8e-7d6f5e4c3b2a"


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "body", "details"), [
    ("/api/v1/costs", {"app_id": APP, "rows": [1]}, {"rows": ["0: Must be a JSON object."]}),
    ("/api/v1/costs", {"app_id": APP, "rows": {"date": "2025-03-01"}},
     {"rows": ["Must be a JSON array."]}),
    ("/api/v1/webhooks", {"app_id": APP, "url": "https://hooks.example/h",
                          "events": {"install": True}},
     {"events": ["Must be a JSON array."]}),
], ids=["a row that is no object", "rows that are no array", "events that are no array"])
def test_wrong_json_types_are_named_in_json_words_not_pythons(owner_api, path, body, details):
    # DRF's own: 'Expected a list of items but got type "dict".', "0: non_field_errors:
    # Invalid data. Expected a dictionary, but got int.": Python's types and DRF's key.
    response = owner_api.post(path, body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == details


@pytest.mark.django_db
def test_unsupported_media_type_is_validation_error(owner_api):
    response = owner_api.post("/api/v1/apps", data="name=x", content_type="text/csv")
    assert response.status_code == 400
    assert "content_type" in response.json()["error"]["details"]


@pytest.mark.django_db
def test_unhandled_error_in_api_view_is_enveloped_500_without_traceback(api, boom_urls,
                                                                         caplog):
    response = api.get("/api/v1/test-boom")
    assert response.status_code == 500
    assert response.json() == {"success": False, "error": {
        "code": "INTERNAL_ERROR", "message": "Internal server error.", "details": {}}}
    assert "kaboom" not in response.content.decode()
    assert "kaboom" in caplog.text


@pytest.mark.django_db
def test_unhandled_error_in_plain_django_view_is_enveloped_500(boom_urls):
    from django.test import Client

    response = Client(raise_request_exception=False).get("/api/v1/test-django-boom")
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "INTERNAL_ERROR"


@pytest.mark.django_db
def test_dashboard_requests_beyond_the_limit_are_rate_limited(owner_api, settings):
    settings.DASHBOARD_RATE_LIMIT = "3/m"
    statuses = [owner_api.get("/api/v1/apps").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    response = owner_api.get("/api/v1/apps")
    assert response.json()["error"]["code"] == "RATE_LIMITED"
    assert 1 <= int(response["Retry-After"]) <= 60


@pytest.mark.django_db
def test_rate_limit_is_per_user(owner_api, outsider_api, settings):
    settings.DASHBOARD_RATE_LIMIT = "2/m"
    for _ in range(3):
        owner_api.get("/api/v1/apps")
    assert outsider_api.get("/api/v1/apps").status_code == 200


@pytest.mark.django_db
def test_unreachable_rate_limit_store_lets_requests_through(owner_api):
    unreachable = {"default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2}}}
    with override_settings(CACHES=unreachable):
        response = owner_api.get("/api/v1/apps")
    assert response.status_code == 200


def test_healthz_answers(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["data"]["status"] == "ok"


@pytest.mark.django_db
def test_readyz_reports_database_and_redis(client, settings):
    response = client.get("/readyz")
    assert response.status_code == 200
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["error"]["details"]["redis"] == "down"


@pytest.mark.django_db
def test_openapi_schema_documents_the_envelope(client):
    response = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema = response.json()
    assert "ErrorEnvelope" in schema["components"]["schemas"]
    signup = schema["paths"]["/api/v1/auth/signup"]["post"]["responses"]["201"]
    data_schema = signup["content"]["application/json"]["schema"]
    assert data_schema["properties"]["success"]["enum"] == [True]


@pytest.mark.django_db
def test_openapi_schema_documents_sdk_key_and_dashboard_token_auth(client):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    paths = schema["paths"]
    assert paths["/api/v1/installs"]["post"]["security"] == [{"apiKeyAuth": []}]
    assert paths["/api/v1/events"]["post"]["security"] == [{"apiKeyAuth": []}]
    # A person's operations take a JWT or a personal access token (teams/authentication.py).
    assert paths["/api/v1/installs"]["get"]["security"] == [{"personalAccessToken": []},
                                                            {"jwtAuth": []}]
    assert schema["components"]["securitySchemes"]["apiKeyAuth"]["name"] == "X-API-Key"
    assert "/api/v1/clicks" in paths
