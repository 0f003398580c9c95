"""The one length rule for what an ad network or a marketer names a click with: media source,
campaign, ad set and ad (docs/attribution.md, "Long click values"). Pure: standard library only.

The columns hold 255 characters. A longer value still makes a click, and the visitor is still
redirected: the value is cut to the limit and the cut is logged, and the Play Store referrer the
redirect writes carries the cut values, so the install that comes back with it fits the
install's own limits. Where a person types the values (the link builder, the links API), a
longer one is refused with this same limit in the message.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_LENGTH = 255
TOO_LONG = f"Must be at most {MAX_LENGTH} characters."


@dataclass(frozen=True)
class ClickValues:
    media_source: str
    campaign_id: str
    adset: str
    ad: str
    cut: tuple[str, ...] = ()  # the names of the values that were longer, in this order


def click_values(*, media_source: str, campaign_id: str, adset: str, ad: str) -> ClickValues:
    given = {"media_source": media_source, "campaign_id": campaign_id, "adset": adset, "ad": ad}
    cut = tuple(name for name, value in given.items() if len(value) > MAX_LENGTH)
    return ClickValues(**{name: value[:MAX_LENGTH] for name, value in given.items()}, cut=cut)


def too_long(value: str) -> bool:
    return len(value) > MAX_LENGTH
