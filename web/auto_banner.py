"""The banner a visit's answer carries (docs/web-sdk-wire.md, "POST /api/v1/web/visits",
`banner`): the web app's banner when it is set to show by itself, for the visitor's device.
The web_to_app app owns banners and hands its reader in at start (web_to_app/apps.py): it
sits above web (it uses web's endpoint base), so web takes the reader instead of importing it.
Without one, visits answer no banner.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

# (web_app_id, user_agent, own_origin) -> the banner config, or None.
AutoBannerReader = Callable[..., dict | None]
_reader: AutoBannerReader | None = None


def register(reader: AutoBannerReader | None) -> None:
    """Take the reader of the banner a visit's answer carries when the banner shows by itself."""
    global _reader
    _reader = reader


def auto_banner(*, web_app_id: uuid.UUID, user_agent: str, own_origin: str) -> dict | None:
    if _reader is None:
        return None
    return _reader(web_app_id=web_app_id, user_agent=user_agent, own_origin=own_origin)
