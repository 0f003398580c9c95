"""What a status callback sends (OpenDSR 8.6, "Callback Request"): the body, and the headers
that sign it with the webhook scheme (delivery.payloads.webhook_headers: `X-Signature`,
HMAC-SHA256 of the body, and the Standard Webhooks `webhook-signature`) under the request's own
secret, given once in the answer that filed it.

OpenDSR asks for an X.509 signature checked against the processor's certificate; a self-hosted
service has no CA-issued signing certificate, so the HMAC scheme the owner's webhooks use
stands in, and `X-OpenDSR-Processor-Domain` names the host as the spec asks.

Pure: standard library and delivery.payloads only.
"""

from __future__ import annotations

import json
from datetime import datetime

from delivery.payloads import iso_utc, webhook_headers

REQUEST_ID_HEADER = "X-OpenDSR-Subject-Request-Id"
DOMAIN_HEADER = "X-OpenDSR-Processor-Domain"


def callback_body(*, controller_id: str, status_callback_url: str, subject_request_id: str,
                  request_status: str, expected_completion_time: datetime,
                  api_version: str, results_url: str | None = None,
                  results_count: int | None = None) -> str:
    body = {
        "controller_id": controller_id,
        "expected_completion_time": iso_utc(expected_completion_time),
        "status_callback_url": status_callback_url,
        "subject_request_id": subject_request_id,
        "request_status": request_status,
        "api_version": api_version,
    }
    if results_url is not None:
        body["results_url"] = results_url
    if results_count is not None:
        body["results_count"] = results_count
    return json.dumps(body, separators=(",", ":"))


def callback_headers(*, secret: str, message_id: str, timestamp: int, body: bytes,
                     subject_request_id: str, processor_domain: str) -> dict[str, str]:
    """The webhook signature headers, with the request's id in a header of its own so the
    receiver picks the secret before it parses the body (OpenDSR 8.8, step 4)."""
    return {**webhook_headers(secret=secret, message_id=message_id, timestamp=timestamp,
                              body=body),
            REQUEST_ID_HEADER: subject_request_id, DOMAIN_HEADER: processor_domain}
