"""Where a link may send a visitor (docs/links.md, "Destinations and open redirects"): open
redirects are impossible. Pure: standard library, tracking's pure redirect rules and the apps'
scheme rule only, no ORM, no clock.

A destination is checked when the link is saved, and the follow side only ever sends a visitor
to a stored destination or the app's store URLs. Valid is an absolute http(s) URL with a host,
by the click redirector's own rule (`tracking.redirects.safe_redirect_url`, so both front doors
agree), or, for the iOS and Android destinations, a URL in the app's own scheme
(`myapp://...`, App.url_scheme) for the "Open" button. The web fallback and the preview image
are opened by browsers and crawlers, which cannot open an app's scheme: http(s) only.
Everything else (`javascript:`, `data:`, relative or protocol-relative URLs, other apps'
schemes) is refused with a message naming what is allowed.
"""

from __future__ import annotations

from apps_registry.app_fields import NEVER_APP_SCHEMES, SCHEME
from tracking.redirects import safe_redirect_url

MAX_LENGTH = 2048


def app_scheme(url_scheme: str | None) -> str | None:
    """The app's scheme, lower-case and bare ("myapp" from "myapp", "MyApp:" or "myapp://");
    None when it has none or it is not one an app may use."""
    if not url_scheme:
        return None
    scheme = url_scheme.strip().removesuffix("//").removesuffix(":").lower()
    if not SCHEME.fullmatch(scheme) or scheme in NEVER_APP_SCHEMES:
        return None
    return scheme


def destination_problem(value: str, *, url_scheme: str | None,
                        allow_app_scheme: bool) -> str | None:
    """Why `value` cannot be a destination, or None when it can. `url_scheme` is the app's
    (App.url_scheme); `allow_app_scheme` says whether this destination may use it."""
    if len(value) > MAX_LENGTH:
        return f"Must be at most {MAX_LENGTH} characters."
    if safe_redirect_url(value) == value:
        return None
    scheme = app_scheme(url_scheme) if allow_app_scheme else None
    if scheme is not None and _in_app_scheme(value, scheme):
        return None
    if scheme is not None:
        return f"Must be an absolute http(s) URL or a {scheme}:// URL of the app."
    return "Must be an absolute http(s) URL."


def _in_app_scheme(value: str, scheme: str) -> bool:
    prefix = f"{scheme}://"
    if not value.lower().startswith(prefix):
        return False
    # The same characters the redirector refuses in an http(s) URL.
    return not any(ord(ch) < 0x20 or ord(ch) == 0x7F or ch in " \\" for ch in value)
