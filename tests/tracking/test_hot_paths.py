"""The SDK hot paths skip most middleware (docs/decisions.md) and answer as before."""

import uuid

import pytest
from django.db import IntegrityError, connection
from django.test.utils import CaptureQueriesContext

from attribution_site import prepared
from tests.tracking.helpers import click_through, install_body

pytestmark = pytest.mark.django_db


def test_hot_paths_answer_without_session_or_csrf_machinery(api, sdk, app):
    click = click_through(api, app, pid="net")
    install = sdk.post("/api/v1/installs", install_body(app, device_id="d-1"), format="json")
    assert click.status_code == 302
    assert install.status_code == 201
    for response in (click, install):
        assert "Set-Cookie" not in response  # no session or CSRF cookie
        assert response["X-Content-Type-Options"] == "nosniff"  # security middleware still runs
    assert not hasattr(install.wsgi_request, "user")  # authentication middleware skipped


def test_sdk_hot_paths_still_check_allowed_hosts(sdk, app):
    response = sdk.post("/api/v1/installs", install_body(app), format="json",
                        HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert response.json()["success"] is False


def test_the_click_redirector_answers_302_whatever_the_host(api, app):
    response = api.get("/api/v1/clicks", {"app_id": str(app.id)}, HTTP_HOST="evil.example")
    assert response.status_code == 302


def test_other_methods_on_hot_urls_take_the_normal_stack(api, owner_api, app):
    assert owner_api.get("/api/v1/installs", {"app_id": str(app.id)}).status_code == 200
    assert api.get("/api/v1/installs", {"app_id": str(app.id)}).status_code == 401
    response = api.delete("/api/v1/clicks")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"


@pytest.mark.postgres
def test_prepared_statements_raise_djangos_errors_and_are_captured(app):
    sql = ("INSERT INTO tracking_install (id, app_id, device_id, platform, sdk_version, "
           "install_referrer, screen_resolution, timezone, language, os_version, device_model, "
           "user_agent, installed_at, match_type, confidence, is_organic, decision) VALUES "
           "(%s, %s, 'dup', 'ios', '1', '', '', '', '', '', '', '', now(), 'organic', 0, true, "
           "'{}')")
    with CaptureQueriesContext(connection) as queries:
        prepared.execute(sql, [uuid.uuid4(), app.id])
    assert len(queries) == 1
    with pytest.raises(IntegrityError):
        prepared.execute(sql, [uuid.uuid4(), app.id])


@pytest.mark.postgres
def test_the_install_path_prepares_its_statements_once_per_connection(sdk, app, settings):
    for n in range(3):
        response = sdk.post("/api/v1/installs", install_body(app, device_id=f"d-{n}"),
                            format="json")
        assert response.status_code == 201
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        statements = [row[0] for row in cursor.fetchall()]
    if not settings.DATABASE_PREPARED_STATEMENTS:
        # The CI run behind PgBouncer: a statement prepared on one server connection would be
        # missing on the next transaction's.
        assert statements == []
        return
    assert any("tracking_install" in s and "UNION ALL" in s for s in statements)
    assert len(statements) == len(set(statements))  # prepared once, reused


def test_deleting_an_app_removes_its_tracking_rows_without_database_foreign_keys(
        api, sdk, owner_api, app):
    from tracking.models import Click, ClickArchive, Event, Install

    click_through(api, app, pid="net", advertising_id="gaid-9")
    sdk.post("/api/v1/installs", install_body(app, device_id="gaid-9"), format="json")
    sdk.post("/api/v1/events", {"app_id": str(app.id), "device_id": "gaid-9",
                                "sdk_version": "2.4.0", "events": [{
                                    "event_name": "open", "properties": {},
                                    "timestamp": 1_700_000_000_000,
                                    "session_id": str(uuid.uuid4())}]}, format="json")
    counts = [m.objects.filter(app=app).count() for m in (Click, ClickArchive, Install, Event)]
    assert counts == [1, 1, 1, 1]
    assert owner_api.delete(f"/api/v1/apps/{app.id}").status_code == 200
    assert [m.objects.filter(app_id=app.id).count()
            for m in (Click, ClickArchive, Install, Event)] == [0, 0, 0, 0]
