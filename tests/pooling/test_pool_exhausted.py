"""A request that finds every pooled connection busy for DATABASE_POOL_TIMEOUT is a 503 with
Retry-After in the envelope, not a 500: nothing was stored and the SDK retries."""

import pytest
from django.db import connection
from django.test import Client
from django.urls import path
from psycopg_pool import ConnectionPool
from rest_framework.views import APIView

from attribution_site.api.exceptions import PoolExhausted, api_error
from attribution_site.urls import urlpatterns as real_urlpatterns


def _pool_timeout_as_django_raises_it() -> Exception:
    """Django's OperationalError around psycopg's PoolTimeout, from a real pool of one
    connection that another borrower holds."""
    database = connection.settings_dict
    pool = ConnectionPool(
        f"host={database['HOST'] or '127.0.0.1'} port={database['PORT'] or 5432} "
        f"dbname={database['NAME']} user={database['USER']}",
        min_size=1, max_size=1, timeout=0.2, open=True)
    try:
        with pool.connection():
            try:
                with connection.wrap_database_errors:
                    pool.getconn()
            except Exception as exc:  # noqa: BLE001 - the error under test, whatever it is
                return exc
        raise AssertionError("a second connection came out of a pool of one")
    finally:
        pool.close()


class PooledView(APIView):
    authentication_classes: list = []
    permission_classes: list = []

    def get(self, request):
        raise ERRORS[0]


def plain_view(request):
    raise ERRORS[0]


ERRORS: list[Exception] = []
urlpatterns = [path("api/v1/test-pool-drf", PooledView.as_view()),
               path("api/v1/test-pool-plain", plain_view), *real_urlpatterns]


@pytest.fixture
def exhausted(settings):
    settings.ROOT_URLCONF = "tests.pooling.test_pool_exhausted"
    settings.DEBUG = False
    ERRORS[:] = [_pool_timeout_as_django_raises_it()]
    yield
    ERRORS.clear()


@pytest.mark.postgres
@pytest.mark.django_db
def test_an_exhausted_pool_stands_for_a_503_to_retry():
    error = api_error(_pool_timeout_as_django_raises_it())
    assert isinstance(error, PoolExhausted)
    assert (error.status, error.retry_after) == (503, 1)


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/test-pool-drf", "/api/v1/test-pool-plain"])
def test_a_request_without_a_pooled_connection_is_an_enveloped_503(exhausted, path):
    response = Client(raise_request_exception=False).get(path)
    assert response.status_code == 503
    assert response["Retry-After"] == "1"
    assert response.json() == {"success": False, "error": {
        "code": "INTERNAL_ERROR", "message": "The service is at capacity; retry shortly.",
        "details": {}}}
