"""The one call every platform API gets (Apple Ads' token exchange, Google Ads claims, the
conversions sent to Google Ads and Meta): POST a body through the one outbound client
(outbox.http: the address rule, the checked address connected to, a total time budget, no
redirects, which would carry a token or an advertising id elsewhere), and hand back an
outbox.replies.Reply, whose `reply_class` is the platforms' common reading of it. Never raises:
a network failure is a reply with an error, for the kind's policy to judge.

The platforms' addresses are the operator's settings (tests point them at local stand-ins);
they get the same address rule as every destination, so a stand-in on this machine needs
OUTBOUND_ALLOW_PRIVATE_NETWORKS. A refusal is an error like an outage: retried, so a setting
corrected within the retries loses no claim.
"""

from __future__ import annotations

from collections.abc import Mapping

from outbox import http
from outbox.replies import Reply

JSON = "application/json"


def post_json(url: str, body: bytes, *, platform: str, timeout: float, body_limit: int,
              headers: Mapping[str, str] | None = None, content_type: str = JSON) -> Reply:
    """POST `body` to `url`, finished within `timeout` seconds, keeping at most `body_limit`
    bytes of the answer; `platform` names the receiver in errors ("Could not reach Google:
    ..."). Headers given win over the defaults (`Content-Type`, `Accept`)."""
    sent = {"Content-Type": content_type, "Accept": JSON, **(headers or {})}
    answer = http.send(http.OutboundRequest("POST", url, sent, body), timeout=timeout,
                       read_limit=body_limit)
    if answer.failure == http.Failure.TIMEOUT:
        return Reply(error=f"No answer within {timeout:g} s.", duration_ms=answer.duration_ms)
    if answer.failure == http.Failure.REFUSED:
        return Reply(error=f"Could not reach {platform}: {answer.error} "
                           f"{http.LOCAL_DESTINATIONS_HINT}", duration_ms=answer.duration_ms)
    if answer.failure is not None:
        return Reply(error=f"Could not reach {platform}: {answer.error}",
                     duration_ms=answer.duration_ms)
    return Reply(status_code=answer.status_code, body=answer.body,
                 duration_ms=answer.duration_ms)
