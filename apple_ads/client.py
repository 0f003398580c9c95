"""The one call to Apple's attribution API (docs/apple.md, "Apple Ads: a correction after the
waterfall"): POST the AdServices token as text/plain to APPLE_ADS_API_URL, with a total time budget.
Never raises: every network failure comes back as an Outcome with an error, for apple_ads.policy to
judge.

`requests` verifies TLS with its CA bundle, or the one REQUESTS_CA_BUNDLE names (tests point it
at a local stand-in's CA). Apple's address is the operator's setting, not user input, so the
delivery app's private-address refusal does not apply; redirects are not followed (Apple's API
does not redirect, and following one would send the token elsewhere).
"""

from __future__ import annotations

import time

import requests

from apple_ads.policy import RESPONSE_BODY_LIMIT, Outcome, response_text

USER_AGENT = "attribution-apple-ads/1.0"


def exchange(*, url: str, token: str, timeout: float) -> Outcome:
    started = time.monotonic()
    try:
        with requests.post(url, data=token.encode(), timeout=timeout, stream=True,
                           allow_redirects=False,
                           headers={"Content-Type": "text/plain", "User-Agent": USER_AGENT,
                                    "Accept": "application/json"}) as response:
            raw = response.raw.read(RESPONSE_BODY_LIMIT * 4, decode_content=True)
            return Outcome(status_code=response.status_code, body=response_text(raw),
                           duration_ms=_ms(started))
    except requests.Timeout:
        return Outcome(error=f"No answer within {timeout:g} s.", duration_ms=_ms(started))
    except requests.RequestException as exc:
        return Outcome(error=f"Could not reach Apple: {type(exc).__name__}: {str(exc)[:300]}",
                       duration_ms=_ms(started))


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
