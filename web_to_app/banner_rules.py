"""The banner's rules (docs/web.md, "The banner"): the `deep_link_value` template, which
devices a banner shows on and which linked app its button opens there. Pure: standard
library only.

A device is `ios`, `android` or `desktop` (anything that is neither phone system, as the
script decides). On a phone the button opens the linked app of that phone's platform, the
first one listed; on a desktop, the first linked app (its short link sends a desktop visitor
to the link's web or store page, as links do).
"""

from __future__ import annotations

import re
import string
import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

PLATFORMS = ("ios", "android", "desktop")
PATH_FIELD = "path"
MAX_TEMPLATE_LENGTH = 512
_TEMPLATE_FORMATTER = string.Formatter()
_SAFE_PATH = re.compile(r"[\x00-\x1f\x7f]")


def template_problem(template: str) -> str | None:
    """Why `template` is not a deep link template, or None: its one placeholder is `{path}`;
    a literal brace is written twice, as in Python's str.format."""
    try:
        fields = [(name, spec, conv) for _text, name, spec, conv
                  in _TEMPLATE_FORMATTER.parse(template) if name is not None]
    except ValueError:
        return "A { or } without its pair; write {{ or }} for a brace itself."
    for name, spec, conv in fields:
        if name != PATH_FIELD or spec or conv:
            return f"Unknown placeholder {{{name}}}: the only one is {{path}}."
    return None


def page_path(url: str) -> str:
    """A page's path without its leading slash (`/shoes/red` -> `shoes/red`), as `{path}`
    takes it; the query and fragment are not part of it."""
    path = urlsplit(url).path if "://" in url else url.split("?", 1)[0].split("#", 1)[0]
    return _SAFE_PATH.sub("", path).lstrip("/")


def deep_link_fill(template: str, *, url: str) -> str:
    """The template with `{path}` filled from the page's URL (a template already checked)."""
    return template.format_map({PATH_FIELD: page_path(url)})


def device_of(*, ua_platform: str) -> str:
    """tracking's platform of a User-Agent (`ios`, `android`, `other`) as a banner device."""
    return ua_platform if ua_platform in ("ios", "android") else "desktop"


def app_for_device(*, device: str,
                   linked: Sequence[tuple[uuid.UUID, str]]) -> uuid.UUID | None:
    """The linked app the button opens on `device`, given (app id, platform) in order."""
    for app_id, platform in linked:
        if device == "desktop" or platform == device:
            return app_id
    return None


def shown_on(*, platforms: Iterable[str], device: str,
             linked: Sequence[tuple[uuid.UUID, str]]) -> uuid.UUID | None:
    """The app a banner set for `platforms` opens on `device`; None: it does not show there."""
    if device not in platforms:
        return None
    return app_for_device(device=device, linked=linked)


def platforms_problem(*, platforms: Sequence[str],
                      linked_platforms: Iterable[str]) -> str | None:
    """A banner for a phone platform needs a linked app of it, and any banner one app."""
    linked_platforms = set(linked_platforms)
    if not linked_platforms:
        return "Link an iOS or Android app to this web app first (linked_apps)."
    for platform in platforms:
        if platform in ("ios", "android") and platform not in linked_platforms:
            return f"No {platform} app is linked to this web app (linked_apps)."
    return None


# A banner event replayed from the browser's queue is at most 7 days old (docs/web-sdk-wire.md,
# "What the browser keeps"); a clock a little ahead is tolerated.
EVENT_PAST = timedelta(days=7, hours=1)
EVENT_FUTURE = timedelta(minutes=10)


def event_moment(*, timestamp_ms: int, now: datetime) -> datetime:
    """When a banner event happened: the browser's time when it is plausible, else the time it
    arrived (a wrong clock must not move an event out of its report day by years)."""
    try:
        moment = datetime.fromtimestamp(timestamp_ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return now
    if now - EVENT_PAST <= moment <= now + EVENT_FUTURE:
        return moment
    return now
