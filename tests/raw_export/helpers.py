"""Helpers shared by the raw_export tests and the tests that build on them.

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

from __future__ import annotations

from tests.console.helpers import console  # noqa: F401 - fixtures
from tests.raw_export.s3_server import (  # noqa: F401 - fixtures
    _moto_process,
    s3_bucket,
    s3_outage,
    s3_server,
)


def s3_body(server, bucket, **overrides) -> dict:
    body = {"name": "Warehouse", "kind": "s3", "bucket": bucket, "prefix": "raw/attribution",
            "endpoint_url": server.endpoint_url, "region": server.region,
            "access_key_id": server.access_key_id,
            "secret_access_key": server.secret_access_key}
    body.update(overrides)
    return {key: value for key, value in body.items() if value is not None}


def directory_body(**overrides) -> dict:
    body = {"name": "Local copy", "kind": "directory", "path": "daily", "format": "csv"}
    body.update(overrides)
    return {key: value for key, value in body.items() if value is not None}


def create(api, body) -> dict:
    response = api.post("/api/v1/data-destinations", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()["data"]["destination"]


__all__ = [
    "create",
    "directory_body",
    "s3_body",
]
