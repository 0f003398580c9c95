"""Where a click redirects to (spec: GET /clicks, redirect priority). Pure.

`redirect_target` owns the order:
1. `redirect_url` when it is an absolute http(s) URL (anything else is ignored: javascript:,
   data:, protocol-relative, control characters);
2. the app's store URL by platform detection: iOS devices get the App Store URL, Android
   devices the Play Store URL, web apps their domain; a desktop browser gets the app's own
   platform's store;
3. a default store URL from settings.
A Play Store target carries our click id in its `referrer` parameter, so the Android install
referrer names the exact click. A web app's click lands on a web page (its domain, or a
`redirect_url` that is no app store) carrying it as `attribution_click_id`, which the web script
reads on landing and the web visit's attribution matches (docs/web.md). A mobile app's
`redirect_url` is returned as given, as the spec's redirect priority says.
"""

from __future__ import annotations

import uuid
from functools import lru_cache
from typing import Protocol
from urllib.parse import parse_qsl, quote_plus, urlencode, urlsplit, urlunsplit

from tracking.referrer import store_referrer

PLAY_HOSTS = {"play.google.com", "market.android.com"}
APP_STORE_HOSTS = {"apps.apple.com", "itunes.apple.com"}
WEB_CLICK_ID_PARAM = "attribution_click_id"


class AppStores(Protocol):
    """What the redirector knows of an app (apps_registry's AppTarget)."""

    platform: str
    app_store_url: str | None
    play_store_url: str | None
    domain: str | None


def redirect_target(*, redirect_url: str | None, device_platform: str,
                    app: AppStores | None, defaults: dict[str, str],
                    click_id: uuid.UUID | None, media_source: str, campaign_id: str) -> str:
    """The first usable of: the link's own URL, the app's store for this device, the default
    store. With a recorded click, a Play Store target names it in its referrer."""
    target = safe_redirect_url(redirect_url)
    if target is None and app is not None:
        target = store_target(
            device_platform=device_platform, app_platform=app.platform,
            app_store_url=app.app_store_url, play_store_url=app.play_store_url,
            domain=app.domain)
    if target is None:
        target = default_target(device_platform=device_platform, defaults=defaults)
    if click_id is not None:
        target = with_play_referrer(target, click_id=click_id, media_source=media_source,
                                    campaign_id=campaign_id)
        if app is not None and app.platform == "web":
            target = with_web_click_id(target, click_id=click_id)
    return target


def with_web_click_id(url: str, *, click_id: uuid.UUID) -> str:
    """A web page's URL with `attribution_click_id=<click id>` (any earlier one replaced); a
    store URL, or anything that is not http(s), unchanged."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme.lower() not in ("http", "https") or host in PLAY_HOSTS \
            or host in APP_STORE_HOSTS:
        return url
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
             if k != WEB_CLICK_ID_PARAM]
    query.append((WEB_CLICK_ID_PARAM, str(click_id)))
    return urlunsplit(parts._replace(query=urlencode(query)))


def safe_redirect_url(value: str | None) -> str | None:
    if not value or len(value) > 4096:
        return None
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value) or " " in value.strip():
        return None
    value = value.strip()
    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or "\\" in value:
        return None
    if parts.hostname is None:
        return None
    return value


def store_target(*, device_platform: str, app_platform: str | None,
                 app_store_url: str | None, play_store_url: str | None,
                 domain: str | None) -> str | None:
    if app_platform == "web":
        return f"https://{domain}/" if domain else None
    if device_platform == "ios":
        return app_store_url
    if device_platform == "android":
        return play_store_url
    return app_store_url if app_platform == "ios" else play_store_url or app_store_url


def default_target(*, device_platform: str, defaults: dict[str, str]) -> str:
    return defaults.get(device_platform) or defaults["other"]


def with_play_referrer(url: str, *, click_id: uuid.UUID, media_source: str,
                       campaign_id: str) -> str:
    play = _play_url(url)
    if play is None:
        return url
    head, query, fragment = play
    referrer = "referrer=" + quote_plus(store_referrer(
        click_id=click_id, media_source=media_source, campaign_id=campaign_id))
    url = f"{head}?{query}&{referrer}" if query else f"{head}?{referrer}"
    return f"{url}#{fragment}" if fragment else url


@lru_cache(maxsize=256)
def _play_url(url: str) -> tuple[str, str, str] | None:
    """A Play Store URL split for appending our referrer: (everything before the query, the
    query without any `referrer`, the fragment); None for other URLs. Cached: every click of
    an app goes to the same store URL, and splitting and re-encoding it was most of the cost
    of building the redirect."""
    parts = urlsplit(url)
    if (parts.hostname or "").lower() not in PLAY_HOSTS:
        return None
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if k != "referrer"])
    return urlunsplit(parts._replace(query="", fragment="")), query, parts.fragment
