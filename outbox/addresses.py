"""The address rule of every outbound call (docs/delivery.md, "Outbound safety (SSRF)"): which
IP addresses may be called, where plain http may go, and which host names are IP addresses in
disguise.

Pure: standard library only. outbox.http applies it to every address a destination resolves
to, before it connects; delivery's URL validation uses `host_literal_address` to tell an
address from a name.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable

CARRIER_GRADE_NAT = ipaddress.ip_network("100.64.0.0/10")
NAT64 = ipaddress.ip_network("64:ff9b::/96")


def address_refusal(address: str) -> str | None:
    """Why `address` must not be called, or None when it is a public unicast address.

    IPv6 forms that embed an IPv4 address (IPv4-mapped, NAT64, 6to4) are judged by the address
    they lead to, so `::ffff:127.0.0.1` is loopback like 127.0.0.1 and `::ffff:8.8.8.8` passes.
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return f"{address} is not an IP address."
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            reason = address_refusal(str(embedded))
            return None if reason is None else f"{ip} embeds {reason}"
    return _category_refusal(ip)


PLAIN_HTTP_PUBLIC = ("Refused: {where}, a public address; plain http is only for a receiver on "
                     "loopback or a private network. Use an https URL.")


def plain_http_refusal(host: str, addresses: Iterable[str]) -> str | None:
    """Why a plain-http call to `host`, which resolves to `addresses`, must not be made, or None.

    The other way round from `address_refusal`: every address must be loopback or private, as
    an unencrypted call (a webhook's or a privacy callback's signed payload) may only stay on
    one's own machine or network. No setting lifts this.
    """
    for address in addresses:
        if address_refusal(address) is None:
            where = f"{host} resolves to {address}" if host != address else host
            return PLAIN_HTTP_PUBLIC.format(where=where)
    return None


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    return None


def _category_refusal(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    checks = (
        (ip.is_unspecified, "unspecified"),
        (ip.is_loopback, "a loopback address"),
        (ip.is_link_local, "a link-local address (cloud metadata lives there)"),
        (isinstance(ip, ipaddress.IPv4Address) and ip in CARRIER_GRADE_NAT,
         "a carrier-grade NAT address"),
        (ip.is_multicast, "a multicast address"),
        (ip.is_private, "a private address"),
        (ip.is_reserved, "a reserved address"),
        (not ip.is_global, "not a public address"),
    )
    for refused, why in checks:
        if refused:
            return f"{ip} is {why}."
    return None


def host_literal_address(host: str) -> str | None:
    """The IP address a host names literally, in every spelling a resolver accepts.

    Besides dotted quads and [IPv6], the C resolver takes integers (2130706433), hex
    (0x7f000001), octal (0177.0.0.1) and short forms (127.1); all of them are caught here.
    """
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        return _text(ipaddress.ip_address(bare.split("%", 1)[0]))
    except ValueError:
        pass
    if re.fullmatch(r"(0[xX][0-9a-fA-F]+|[0-9]+)(\.(0[xX][0-9a-fA-F]+|[0-9]+)){0,3}", bare):
        try:
            return str(ipaddress.IPv4Address(socket.inet_aton(bare)))
        except OSError:
            return None
    return None


def _text(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    # An IPv4-mapped address as ::ffff:a.b.c.d whatever the Python version (3.13 prints it so,
    # 3.11 as ::ffff:7f00:1), so logs and messages read the same everywhere.
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return f"::ffff:{address.ipv4_mapped}"
    return str(address)
