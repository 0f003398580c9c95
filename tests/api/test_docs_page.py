"""The API's Swagger page works offline: Swagger UI comes from this service's static files (the
drf-spectacular-sidecar package), never from a CDN."""

import re

import pytest

pytestmark = pytest.mark.django_db


def test_the_docs_page_loads_swagger_ui_from_our_own_static_files(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert any(s.endswith("swagger-ui-dist/swagger-ui-bundle.js") for s in sources), sources
    assert all(s.startswith("/") for s in sources), f"an outside address: {sources}"
    # An address naming a CDN anywhere (a CSRF token may hold the letters "cdn" by chance).
    assert not re.search(r"(?:https?:)?//[^\s\"']*cdn", html.lower())


@pytest.mark.parametrize("name", ["swagger-ui-bundle.js", "swagger-ui.css",
                                  "swagger-ui-standalone-preset.js", "LICENSE"])
def test_swagger_ui_files_are_served_by_the_service(client, name):
    response = client.get(f"/static/drf_spectacular_sidecar/swagger-ui-dist/{name}")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) if response.streaming else response.content
