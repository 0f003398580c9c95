"""Helpers shared by the web tests and the tests that build on them.

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

from __future__ import annotations

import json
import time
import uuid

from django.test import Client

ORIGIN = "https://shop.example"


class Page:
    """A page of ORIGIN calling the web endpoints as the script does: JSON as text/plain."""

    def __init__(self, key: str, origin: str = ORIGIN):
        self.client, self.key, self.origin = Client(), key, origin

    def post(self, path: str, body, *, key: str | None = None, origin: str | None = None,
             content_type: str = "text/plain;charset=UTF-8"):
        raw = body if isinstance(body, str | bytes) else json.dumps(body)
        return self.client.post(f"/api/v1/web/{path}?key={key or self.key}", raw,
                                content_type=content_type,
                                HTTP_ORIGIN=origin or self.origin)

    def visit(self, web_id: str, url: str = f"{ORIGIN}/", **fields):
        body = {"web_id": web_id, "visit_id": str(uuid.uuid4()),
                "timestamp": int(time.time() * 1000), "url": url, "referrer": "",
                "sdk_version": "1.0.0", **fields}
        return self.post("visits", body)


def new_web_id() -> str:
    return str(uuid.uuid4())


__all__ = [
    "ORIGIN",
    "Page",
    "new_web_id",
]
