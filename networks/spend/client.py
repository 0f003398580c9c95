"""The calls of a cost pull (docs/networks.md, "Ad spend"): each `Call` a platform module builds
goes out through the one outbound client (outbox.http: the address rule, the checked address,
a total time budget, no redirects, which would carry a token elsewhere). Never raises: no answer
is an `Answer` with an error, for the platform module to judge. A call's secrets are masked in
anything it says; the URL (Meta's carries the access token) is never quoted.
"""

from __future__ import annotations

from networks.spend.core import Answer, Call, masked
from outbox import http

# One page of a report: Meta's 500 ads, TikTok's 1,000, one day of a Google Ads account.
PAGE_BYTES_LIMIT = 32 * 1024 * 1024


def call(request: Call, *, timeout: float) -> Answer:
    answer = http.send(http.OutboundRequest(request.method, request.url, dict(request.headers),
                                            request.body),
                       timeout=timeout, read_limit=PAGE_BYTES_LIMIT + 1)
    if answer.failure == http.Failure.REFUSED:
        return Answer(error=masked(f"{answer.error} {http.LOCAL_DESTINATIONS_HINT}",
                                   request.secrets))
    if answer.failure is not None:
        return Answer(error=masked(answer.error or "no answer", request.secrets))
    if len(answer.body) > PAGE_BYTES_LIMIT:
        return Answer(error=f"The answer is larger than {PAGE_BYTES_LIMIT // 2**20} MB.")
    return Answer(status_code=answer.status_code, body=answer.body,
                  retry_after=answer.retry_after)
