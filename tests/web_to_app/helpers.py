"""Helpers shared by the web_to_app tests and the tests that build on them.

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

from __future__ import annotations

ORIGIN = "https://shop.example"


__all__ = [
    "ORIGIN",
]
