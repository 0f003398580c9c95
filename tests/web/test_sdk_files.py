"""/sdk/web/: the committed script files, typed, cached and revalidated by the manifest's
digests (docs/web-sdk-wire.md, "Files the service serves")."""

import hashlib
import json

import pytest

from web.sdk_files import sdk_directory

MANIFEST = json.loads((sdk_directory() / "manifest.json").read_text())


@pytest.mark.parametrize(("name", "content_type"), [
    ("v1.js", "text/javascript"), ("banner-v1.js", "text/javascript"),
    ("banner-v1.css", "text/css")])
def test_each_file_is_served_with_its_type_nosniff_and_an_etag(client, name, content_type):
    response = client.get(f"/sdk/web/{name}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith(content_type)
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "max-age=86400" in response["Cache-Control"]
    digest = MANIFEST["files"][name]["sha256"]
    assert hashlib.sha256(response.content).hexdigest() == digest
    assert response["ETag"] == f'"{digest[:32]}"'
    again = client.get(f"/sdk/web/{name}", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304 and again["ETag"] == response["ETag"]


def test_a_hashed_name_is_cached_for_a_year(client):
    digest = MANIFEST["files"]["v1.js"]["sha256"]
    response = client.get(f"/sdk/web/v1.{digest[:12]}.js")
    assert response.status_code == 200
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"


@pytest.mark.parametrize("name", ["v2.js", "manifest.json", "..%2fv1.js", "v1.000000000000.js"])
def test_anything_else_is_not_found(client, name):
    assert client.get(f"/sdk/web/{name}").status_code == 404


def test_only_reads_are_taken(client):
    assert client.post("/sdk/web/v1.js").status_code == 405
