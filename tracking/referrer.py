"""Install referrer parsing (spec: attribution waterfall, priority 1). Pure.

The Play Store hands the app the `referrer` value of the store URL it was opened with. We put
our click id there (see `store_referrer`), so a referrer can name the exact click. Other
referrers name the source with `pid`/`c` or `utm_source`/`utm_campaign`. Google Play sometimes
URL-encodes the value twice, so it is decoded at most twice, and only while it still looks
encoded. `utm_source=google-play&utm_medium=organic` is Play's own organic referrer: no match.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlencode

CLICK_ID_PARAM = "click_id"
MAX_DECODES = 2
NOT_SET = {"", "(not set)", "(not%20set)", "not set", "none", "null"}


@dataclass(frozen=True)
class ReferrerInfo:
    click_id: uuid.UUID | None
    media_source: str | None
    campaign_id: str | None
    adset: str | None = None
    ad: str | None = None

    @property
    def names_a_source(self) -> bool:
        return self.click_id is not None or self.media_source is not None


def store_referrer(*, click_id: uuid.UUID, media_source: str, campaign_id: str) -> str:
    """The value we put in the Play Store URL's `referrer` parameter for a click."""
    params = {CLICK_ID_PARAM: str(click_id)}
    if media_source:
        params["pid"] = media_source
    if campaign_id:
        params["c"] = campaign_id
    return urlencode(params)


def decode(raw: str) -> str:
    text = raw.strip()
    for _ in range(MAX_DECODES):
        if "=" in text or "%" not in text:
            break
        text = unquote(text)
    return text


def parse_install_referrer(raw: str | None) -> ReferrerInfo | None:
    """What a referrer says about the install's source; None when it says nothing usable."""
    if not raw or not raw.strip():
        return None
    params = {k.lower(): v[0].strip() for k, v in parse_qs(decode(raw)[:4096]).items() if v}

    def value(*names: str) -> str | None:
        for name in names:
            candidate = params.get(name)
            if candidate is not None and candidate.lower() not in NOT_SET:
                return candidate[:255]
        return None

    source = value("pid", "utm_source", "af_pid", "media_source")
    medium = (value("utm_medium") or "").lower()
    if source and source.lower() == "google-play" and medium == "organic":
        source = None
    click_id = _uuid_or_none(value(CLICK_ID_PARAM, "clickid", "af_click_id"))
    info = ReferrerInfo(
        click_id=click_id,
        media_source=source,
        campaign_id=value("c", "utm_campaign", "campaign", "af_c"),
        adset=value("af_adset", "utm_content"),
        ad=value("af_ad", "utm_term"),
    )
    return info if info.names_a_source else None


def _uuid_or_none(value: str | None) -> uuid.UUID | None:
    if not value:
        return None
    try:
        return uuid.UUID(value)
    except ValueError:
        return None
