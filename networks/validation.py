"""The rules an integration's fields follow (spec additions: `PUT /apps/{id}/integrations/...`,
docs/networks.md). Pure: each check takes the sent value and returns the clean one or raises
`Invalid` with the message the 400 shows under the field's name."""

from __future__ import annotations

import re

from networks.models import META_VIEW_WINDOW_MAXIMUM_HOURS

DECRYPTION_KEY = re.compile(r"[0-9a-fA-F]{64}")
META_APP_ID = re.compile(r"[0-9]{1,32}")
# Meta's access tokens are long opaque strings of letters, digits and a few signs.
ACCESS_TOKEN = re.compile(r"[A-Za-z0-9_\-.|=]{16,512}")
# Google Ads' link id for an app analytics provider ("other provider"): an opaque id.
LINK_ID = re.compile(r"[A-Za-z0-9_\-]{8,64}")
# A platform event name: Meta's standard and custom names (fb_mobile_purchase, up to 40
# characters), Google's app_event_name (in_app_purchase, or a custom name).
PLATFORM_EVENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_\-. ]{0,99}")
MAX_MAPPED_EVENTS = 50
OUR_EVENT_MAX_LENGTH = 128  # tracking's Event.event_name


class Invalid(ValueError):
    pass


def decryption_key(value) -> str:
    if not isinstance(value, str) or not DECRYPTION_KEY.fullmatch(value.strip()):
        raise Invalid("Must be the 64 hexadecimal characters of Meta's Install Referrer "
                      "Decryption Key.")
    return value.strip().lower()


def meta_app_id(value) -> str:
    if not isinstance(value, str) or not META_APP_ID.fullmatch(value.strip()):
        raise Invalid("Must be Meta's app id: digits only, at most 32.")
    return value.strip()


def access_token(value) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not ACCESS_TOKEN.fullmatch(value.strip()):
        raise Invalid("Must be a Meta access token: 16 to 512 letters, digits and _-.|=.")
    return value.strip()


def link_id(value) -> str:
    if not isinstance(value, str) or not LINK_ID.fullmatch(value.strip()):
        raise Invalid("Must be the link id Google Ads shows: 8 to 64 letters, digits, _ and -.")
    return value.strip()


def view_window_hours(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not (
            1 <= value <= META_VIEW_WINDOW_MAXIMUM_HOURS):
        raise Invalid(f"Must be a whole number of hours from 1 to "
                      f"{META_VIEW_WINDOW_MAXIMUM_HOURS}.")
    return value


def event_mapping(value) -> dict[str, str]:
    """Our event name -> the platform's event name."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Invalid('Must be an object of our event name -> platform event name, such as '
                      '{"purchase": "in_app_purchase"}.')
    if len(value) > MAX_MAPPED_EVENTS:
        raise Invalid(f"At most {MAX_MAPPED_EVENTS} events.")
    clean = {}
    for ours, theirs in value.items():
        if not ours.strip() or len(ours) > OUR_EVENT_MAX_LENGTH or not ours.isprintable():
            raise Invalid(f"Event names are 1 to {OUR_EVENT_MAX_LENGTH} printable characters: "
                          f"{ours[:40]!r}.")
        if not isinstance(theirs, str) or not PLATFORM_EVENT.fullmatch(theirs):
            raise Invalid(f"The platform event name for {ours[:40]!r} must be 1 to 100 letters, "
                          "digits, _, -, . or spaces, starting with a letter, digit or _.")
        clean[ours] = theirs
    return clean
