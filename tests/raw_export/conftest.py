"""Raw-export fixtures: moto's S3 server on loopback (s3_server.py), an export directory, and
destinations made through the API as an owner would."""

from __future__ import annotations

import pytest

from tests.console.conftest import console  # noqa: F401 - fixtures
from tests.raw_export.s3_server import (  # noqa: F401 - fixtures
    _moto_process,
    s3_bucket,
    s3_outage,
    s3_server,
)


@pytest.fixture(autouse=True)
def _export_settings(settings, tmp_path):
    settings.RAW_EXPORT_DIRECTORY_ROOT = str(tmp_path / "exports")
    (tmp_path / "exports").mkdir()


@pytest.fixture
def export_root(settings):
    from pathlib import Path

    return Path(settings.RAW_EXPORT_DIRECTORY_ROOT)


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
