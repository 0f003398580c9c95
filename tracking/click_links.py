"""Tracking links for ad networks (spec: GET /clicks, its query parameters): the query a click
link carries for a media source, campaign, ad set, ad and redirect URL, and what would make a
link not do what its author meant. Pure: no ORM, no request; the console's link builder adds
the service's address.

A redirect URL is checked by the redirector's own rule (`redirects.safe_redirect_url`): one it
would ignore is refused here rather than silently sending visitors to the store instead.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from urllib.parse import quote, urlencode

from tracking.click_values import TOO_LONG, too_long
from tracking.redirects import safe_redirect_url

# The form's fields are the click's own parameter names, in the order a link lists them.
MEDIA_SOURCE, CAMPAIGN, ADSET, AD, REDIRECT_URL = "pid", "c", "af_adset", "af_ad", "redirect_url"
PARAMETERS = (MEDIA_SOURCE, CAMPAIGN, ADSET, AD, REDIRECT_URL)
# What an ad network appends with its own macro for the device's IDFA (iOS) or GAID (Android).
DEVICE_ID_PARAMETER = "advertising_id"

MEDIA_SOURCE_REQUIRED = "Required: the media source (ad network or publisher) the clicks come from."
REDIRECT_IGNORED = ("The redirector would ignore this URL and send visitors to the app's store: "
                    "it must be an absolute http:// or https:// URL without spaces.")


@dataclass(frozen=True)
class ClickLink:
    app_id: uuid.UUID
    media_source: str
    campaign_id: str = ""
    adset: str = ""
    ad: str = ""
    redirect_url: str = ""


def click_query(link: ClickLink) -> str:
    """The link's query: app_id first, then the parameters that have a value, each
    percent-encoded (a space as %20, which every ad server and our parser read alike)."""
    pairs = [("app_id", str(link.app_id)), (MEDIA_SOURCE, link.media_source),
             (CAMPAIGN, link.campaign_id), (ADSET, link.adset), (AD, link.ad),
             (REDIRECT_URL, safe_redirect_url(link.redirect_url) or "")]
    return urlencode([(name, value) for name, value in pairs if value], quote_via=quote)


def link_problems(link: ClickLink) -> dict[str, list[str]]:
    """{parameter: [messages]} for what would make the link not do what was asked."""
    problems: dict[str, list[str]] = {}
    if not link.media_source.strip():
        problems[MEDIA_SOURCE] = [MEDIA_SOURCE_REQUIRED]
    if link.redirect_url and safe_redirect_url(link.redirect_url) is None:
        problems[REDIRECT_URL] = [REDIRECT_IGNORED]
    # The redirector would cut a longer value; a person typing one is told instead.
    for name, value in ((MEDIA_SOURCE, link.media_source), (CAMPAIGN, link.campaign_id),
                        (ADSET, link.adset), (AD, link.ad)):
        if too_long(value):
            problems.setdefault(name, []).append(TOO_LONG)
    return problems
