"""The one call every platform API gets (Apple Ads' token exchange, Google Ads claims, the
conversions sent to Google Ads and Meta): POST a body, read a bounded answer within a total time
budget, and hand back an outbox.replies.Reply, whose `reply_class` is the platforms' common
reading of it. Never raises: a network failure is a reply with an error, for the kind's policy
to judge.

The platforms' addresses are the operator's settings, not user input (tests point them at local
stand-ins), so no private-address refusal applies. Redirects are not followed: each platform's
API answers where it was asked, and a redirect would carry a token or an advertising id
elsewhere. TLS is verified with requests' CA bundle, or the one REQUESTS_CA_BUNDLE names.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import requests

from outbox.replies import Reply, text

JSON = "application/json"


def post_json(url: str, body: bytes, *, platform: str, timeout: float, body_limit: int,
              headers: Mapping[str, str] | None = None, content_type: str = JSON) -> Reply:
    """POST `body` to `url`, finished within `timeout` seconds, keeping at most `body_limit`
    bytes of the answer; `platform` names the receiver in errors ("Could not reach Google:
    ..."). Headers given win over the defaults (`Content-Type`, `Accept`)."""
    started = time.monotonic()
    sent = {"Content-Type": content_type, "Accept": JSON, **(headers or {})}
    try:
        with requests.post(url, data=body, headers=sent, timeout=timeout, stream=True,
                           allow_redirects=False) as response:
            # A little more than is kept: a compressed or multi-byte answer still fills it.
            raw = response.raw.read(body_limit * 4, decode_content=True)
            return Reply(status_code=response.status_code, body=text(raw, body_limit),
                         duration_ms=_ms(started))
    except requests.Timeout:
        return Reply(error=f"No answer within {timeout:g} s.", duration_ms=_ms(started))
    except requests.RequestException as exc:
        return Reply(error=f"Could not reach {platform}: {type(exc).__name__}: "
                           f"{str(exc)[:300]}", duration_ms=_ms(started))


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
