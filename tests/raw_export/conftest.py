"""Raw-export fixtures: moto's S3 server on loopback (s3_server.py), an export directory, and
destinations made through the API as an owner would."""

from __future__ import annotations

import pytest

from tests.console.helpers import console  # noqa: F401 - fixtures
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


