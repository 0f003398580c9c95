"""The one call to Google's App Conversion Tracking and Remarketing API (docs/networks.md,
"Google Ads"): POST the request google_ads.protocol built, with a total time budget. Never
raises: every network failure comes back as an Outcome with an error, for google_ads.policy to
judge.

`requests` verifies TLS with its CA bundle, or the one REQUESTS_CA_BUNDLE names (tests point it
at a local stand-in's CA). Google's origin is the operator's setting, not user input; redirects
are not followed (they would carry the developer token elsewhere).
"""

from __future__ import annotations

import time

import requests

from google_ads.policy import RESPONSE_BODY_LIMIT, Outcome, response_text
from google_ads.protocol import Request


def send(request: Request, *, timeout: float) -> Outcome:
    started = time.monotonic()
    try:
        with requests.post(request.url, data=request.body, headers=request.headers,
                           timeout=timeout, stream=True, allow_redirects=False) as response:
            raw = response.raw.read(RESPONSE_BODY_LIMIT * 4, decode_content=True)
            return Outcome(status_code=response.status_code, body=response_text(raw),
                           duration_ms=_ms(started))
    except requests.Timeout:
        return Outcome(error=f"No answer within {timeout:g} s.", duration_ms=_ms(started))
    except requests.RequestException as exc:
        return Outcome(error=f"Could not reach Google: {type(exc).__name__}: {str(exc)[:300]}",
                       duration_ms=_ms(started))


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
