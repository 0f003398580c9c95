"""The caller's address, honouring NUM_PROXIES trusted reverse proxies. Pure.

Each trusted proxy appends the address it saw to X-Forwarded-For, so the client is the entry
NUM_PROXIES from the right. Entries further left are supplied by the client and never trusted.
"""

from __future__ import annotations

import ipaddress

from attribution_site.addresses import dotted_quad


def client_ip(*, remote_addr: str, forwarded_for: str | None, num_proxies: int) -> str:
    if num_proxies <= 0 or not forwarded_for:
        return remote_addr
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    if len(hops) < num_proxies:
        return hops[0] if hops else remote_addr
    candidate = hops[-num_proxies]
    if dotted_quad(candidate) is not None:
        return candidate  # already canonical
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return remote_addr


def request_client_ip(request) -> str:
    from django.conf import settings

    meta = request.META
    return client_ip(
        remote_addr=meta.get("REMOTE_ADDR", ""),
        forwarded_for=meta.get("HTTP_X_FORWARDED_FOR"),
        num_proxies=settings.NUM_PROXIES,
    )
