"""The one call to Google's App Conversion Tracking and Remarketing API (docs/networks.md,
"Google Ads"): POST the request networks/google/protocol.py built through the platforms' JSON client
(outbox.json_client: a total time budget, no redirects, which would carry the developer token
elsewhere; never raises), for networks/google/policy.py to judge.
"""

from __future__ import annotations

from networks.google.policy import RESPONSE_BODY_LIMIT, Outcome
from networks.google.protocol import Request
from outbox.json_client import post_json


def send(request: Request, *, timeout: float) -> Outcome:
    return post_json(request.url, request.body, platform="Google", timeout=timeout,
                     body_limit=RESPONSE_BODY_LIMIT, headers=request.headers)
