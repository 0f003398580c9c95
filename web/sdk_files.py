"""The web script's files (docs/web-sdk-wire.md, "Files the service serves"): `/sdk/web/v1.js`,
`banner-v1.js` and `banner-v1.css`, and each under its content-hashed name
(`v1.<first 12 of sha256>.js`).

`static/web_sdk/manifest.json` names the files and their digests; `make sdk` writes both. A
stable name is cached for a day (and used stale for a week while the browser revalidates with
its ETag), a hashed name for a year as immutable: a site's tag names the stable URL, so a year
on it would keep an old script on returning visitors long after a fix. Both with
`X-Content-Type-Options: nosniff` and the type a browser checks under it, and
`Cross-Origin-Resource-Policy: cross-origin`, since every site embedding it is another origin.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpResponse, HttpResponseNotModified
from django.views.decorators.http import require_safe

TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
STABLE_CACHE = "public, max-age=86400, stale-while-revalidate=604800"
HASHED_CACHE = "public, max-age=31536000, immutable"
HASH_CHARS = 12


@dataclass(frozen=True)
class SdkFile:
    content: bytes
    content_type: str
    etag: str
    cache_control: str


def sdk_directory() -> Path:
    return Path(settings.BASE_DIR) / "static" / "web_sdk"


@functools.cache
def sdk_files() -> dict[str, SdkFile]:
    """Every name served, stable and hashed, read once per process."""
    directory = sdk_directory()
    manifest = json.loads((directory / "manifest.json").read_text())
    served = {}
    for name, facts in manifest["files"].items():
        path = directory / name
        stem, suffix = path.stem, path.suffix
        content = path.read_bytes()
        etag = f'"{facts["sha256"][:32]}"'
        content_type = TYPES[suffix]
        served[name] = SdkFile(content, content_type, etag, STABLE_CACHE)
        served[f"{stem}.{facts['sha256'][:HASH_CHARS]}{suffix}"] = SdkFile(
            content, content_type, etag, HASHED_CACHE)
    return served


def sdk_version() -> str:
    return json.loads((sdk_directory() / "manifest.json").read_text())["version"]


@require_safe
def sdk_file(request, name: str) -> HttpResponse:
    served = sdk_files().get(name)
    if served is None:
        raise Http404("No such file of the web script.")
    if served.etag in _etags(request.META.get("HTTP_IF_NONE_MATCH", "")):
        response = HttpResponseNotModified()
    else:
        response = HttpResponse(served.content, content_type=served.content_type)
    response["ETag"] = served.etag
    response["Cache-Control"] = served.cache_control
    response["X-Content-Type-Options"] = "nosniff"
    response["Cross-Origin-Resource-Policy"] = "cross-origin"
    return response


def _etags(header: str) -> set[str]:
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}
