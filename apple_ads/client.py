"""The one call to Apple's attribution API (docs/apple.md, "Apple Ads: a correction after the
waterfall"): POST the AdServices token as text/plain to APPLE_ADS_API_URL through the platforms'
JSON client (outbox.json_client: a total time budget, no redirects, which would send the token
elsewhere; never raises), for apple_ads.policy to judge.
"""

from __future__ import annotations

from apple_ads.policy import RESPONSE_BODY_LIMIT, Outcome
from outbox.json_client import post_json

USER_AGENT = "attribution-apple-ads/1.0"


def exchange(*, url: str, token: str, timeout: float) -> Outcome:
    return post_json(url, token.encode(), platform="Apple", timeout=timeout,
                     body_limit=RESPONSE_BODY_LIMIT, content_type="text/plain",
                     headers={"User-Agent": USER_AGENT})
