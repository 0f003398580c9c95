"""The delivery and attempt lists of the admin count no whole table: a filtered page counts
its filter's rows only, and an unfiltered page of a large table is paged on PostgreSQL's
estimate (attribution_site/admin_paging.py)."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from attribution_site import admin_paging
from delivery.models import Delivery
from tests.delivery.helpers import install_event, make_postback, publish

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(django_user_model):
    staff = django_user_model.objects.create_superuser("ops@example.com", "correct horse")
    client = Client()
    client.force_login(staff)
    return client


def counts(queries, table: str) -> list[str]:
    return [q["sql"] for q in queries
            if q["sql"].startswith("SELECT COUNT(*)") and f'FROM "{table}"' in q["sql"]]


@pytest.fixture
def three_deliveries(app):
    make_postback(app, "https://postbacks.example/pb")
    publish(install_event(app), install_event(app), install_event(app))
    assert Delivery.objects.count() == 3


@pytest.mark.parametrize("path,table", [
    ("/admin/delivery/delivery/?state__exact=pending", "delivery_delivery"),
    ("/admin/delivery/deliveryattempt/?succeeded__exact=0", "delivery_deliveryattempt"),
])
def test_a_filtered_list_counts_only_what_the_filter_selects(staff_client, three_deliveries,
                                                             path, table):
    with CaptureQueriesContext(connection) as queries:
        assert staff_client.get(path).status_code == 200
    assert [" WHERE " in sql for sql in counts(queries, table)] == [True]


def test_a_small_table_is_counted_exactly(staff_client, three_deliveries):
    with CaptureQueriesContext(connection) as queries:
        page = staff_client.get("/admin/delivery/delivery/").content.decode()
    assert len(counts(queries, "delivery_delivery")) == 1
    assert "3 deliveries" in page


@pytest.mark.postgres
def test_an_unfiltered_list_of_a_large_table_is_paged_on_the_estimate(
        staff_client, three_deliveries, monkeypatch):
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE delivery_delivery")
    monkeypatch.setattr(admin_paging, "ESTIMATE_FROM", 3)
    with CaptureQueriesContext(connection) as queries:
        page = staff_client.get("/admin/delivery/delivery/").content.decode()
    assert counts(queries, "delivery_delivery") == []
    assert "3 deliveries" in page
