"""Where following a link sends a visitor, and what kind of visitor it is (docs/links.md,
"Following a link"). Pure: standard library and tracking's pure redirect rules only, no ORM, no
clock.

Destinations, first usable wins (`link_target`):
- iOS: the link's iOS destination, else the app's App Store URL;
- Android: the link's Android destination, else the app's Play Store URL;
- then, and for every other device: the link's web destination, the app's web domain, the
  store of the app's own platform (`tracking.redirects.store_target`), the default store.
A redirect only ever goes to an absolute http(s) URL (the click redirector's own rule), so a
destination in the app's scheme (`myapp://...`, allowed at save for the "Open" button) is
skipped by the redirect: a 302 to an app that is not installed strands the visitor on an error
page. The in-app browser interstitial offers it as a second button (`app_open_url`). When a
click was recorded and the target is a Play Store URL (the app's, or the link's own Android
destination), its `referrer` names the click, exactly as /clicks does; a web app's web page names
it as `attribution_click_id`, which the web script reads on landing.

Visitors (`visitor_kind`) are classified from the uap-core families the UA parser gives (it knows
the Facebook, Messenger, Instagram, TikTok, Snapchat, X/Twitter, LINE and WeChat app browsers,
and tracking's one list of bots and crawlers marks the link-preview crawlers and search robots,
`tracking.useragent.is_bot`). uap-core has no rule
for LinkedIn's app browser (`[LinkedInApp]` at the end of a WebView's User-Agent), so that one
marker is matched here.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from links.destinations import app_scheme
from tracking.redirects import (
    AppStores,
    default_target,
    safe_redirect_url,
    store_target,
    with_play_referrer,
    with_web_click_id,
)

# The codes a link may have (links/codes.py validates them at save): anything else is unknown
# without asking the database.

BROWSER, IN_APP_BROWSER, CRAWLER = "browser", "in_app_browser", "crawler"

# uap-core's user-agent families of the in-app browsers of the apps links are shared in.
IN_APP_BROWSER_FAMILIES = frozenset({
    "Facebook", "Facebook Messenger", "Instagram", "TikTok", "Snapchat", "Twitter", "LINE",
    "WeChat Browser",
})
# In-app browsers uap-core does not know (checked against ua-parser-builtins 202610).
IN_APP_BROWSER_MARKERS = ("[LinkedInApp]",)

LIVE, INACTIVE, EXPIRED = "live", "inactive", "expired"


class LinkDestinations(Protocol):
    ios_url: str | None
    android_url: str | None
    web_url: str | None


@dataclass(frozen=True)
class Destination:
    url: str
    # The target names the recorded click (a Play Store referrer, a web app's page).
    carries_click: bool


def visitor_kind(*, browser_family: str, bot: bool, user_agent: str) -> str:
    """BROWSER, IN_APP_BROWSER or CRAWLER (`bot`: tracking's one list of bots and crawlers,
    `tracking.useragent.is_bot`). A crawler is never counted; an in-app browser is counted and
    shown the interstitial."""
    if bot:
        return CRAWLER
    if browser_family in IN_APP_BROWSER_FAMILIES:
        return IN_APP_BROWSER
    if any(marker in user_agent for marker in IN_APP_BROWSER_MARKERS):
        return IN_APP_BROWSER
    return BROWSER


def link_state(*, active: bool, expires_at: datetime | None, now: datetime) -> str:
    """LIVE, INACTIVE or EXPIRED (at `expires_at` exactly the link has expired)."""
    if not active:
        return INACTIVE
    if expires_at is not None and expires_at <= now:
        return EXPIRED
    return LIVE


def link_target(*, device_platform: str, link: LinkDestinations, app: AppStores | None,
                defaults: dict[str, str], click_id: uuid.UUID | None, media_source: str,
                campaign_id: str) -> Destination:
    """The first usable destination for this device (see the module docstring); with a
    recorded click, a Play Store target names it in its referrer."""
    candidates: list[str | None] = []
    if device_platform == "ios":
        candidates += [link.ios_url, app.app_store_url if app else None]
    elif device_platform == "android":
        candidates += [link.android_url, app.play_store_url if app else None]
    candidates.append(link.web_url)
    if app is not None:
        candidates.append(f"https://{app.domain}/" if app.domain else None)
        candidates.append(store_target(
            device_platform="other", app_platform=app.platform,
            app_store_url=app.app_store_url, play_store_url=app.play_store_url,
            domain=app.domain))
    target = next((url for url in map(safe_redirect_url, candidates) if url is not None),
                  None) or default_target(device_platform=device_platform, defaults=defaults)
    if click_id is None:
        return Destination(url=target, carries_click=False)
    if app is not None and app.platform == "web":
        # The web script on the landing page reads the click back (docs/web.md).
        named = with_web_click_id(target, click_id=click_id)
        return Destination(url=named, carries_click=named != target)
    with_referrer = with_play_referrer(target, click_id=click_id, media_source=media_source,
                                       campaign_id=campaign_id)
    return Destination(url=with_referrer, carries_click=with_referrer != target)


def app_open_url(*, device_platform: str, link: LinkDestinations,
                 url_scheme: str | None) -> str | None:
    """The link's destination for this device when it is in the app's own scheme: the
    interstitial's "open in the app" button. None for http(s) destinations (the main button
    already goes there), for other schemes, and on other devices."""
    url = {"ios": link.ios_url, "android": link.android_url}.get(device_platform)
    scheme = app_scheme(url_scheme)
    if not url or scheme is None or not url.lower().startswith(f"{scheme}://"):
        return None
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F or ch in ' \\"<>' for ch in url):
        return None
    return url
