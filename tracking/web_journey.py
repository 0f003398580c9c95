"""An install's web journey as tracking shows it (docs/web.md, "Web to app"): the `web` block
of an install's detail and the line of its explanation. The web apps own the data and hand a
reader in at start (web_to_app/apps.py): they sit above tracking, so tracking takes the reader
instead of importing it. Without one, no install has a web journey.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# An install (tracking.models.Install) -> its `web` block, or None.
WebJourneyReader = Callable[[Any], dict | None]
_readers: list[WebJourneyReader] = []


def reader_register(reader: WebJourneyReader) -> None:
    if reader not in _readers:
        _readers.append(reader)


def web_journey(install) -> dict | None:
    """The first registered reader's answer."""
    for reader in _readers:
        found = reader(install)
        if found is not None:
            return found
    return None
