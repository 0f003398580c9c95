"""The outbound HTTP call of a delivery (spec: Events, "Delivery"): resolve the host once,
refuse addresses that are not public, connect to the very address that was checked, send one
request without following redirects, and report an `Outcome`. `send` never raises.

Built on http.client rather than requests: requests (urllib3) resolves the host name again
when it connects, so an address check before the call could be undone by a DNS answer that
changes in between (DNS rebinding). Here the checked address is the one connected to; TLS still
verifies the certificate against the host name (SNI), with the CA bundle named by
REQUESTS_CA_BUNDLE, or requests' bundled one. Environment proxies are not used: a proxy would
make the address check meaningless. See docs/delivery.md, "Outbound safety".
"""

from __future__ import annotations

import base64
import http.client
import logging
import os
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import unquote, urlsplit

import requests.certs

from delivery import policy
from delivery.payloads import USER_AGENT
from delivery.policy import ErrorKind, Outcome

logger = logging.getLogger(__name__)

MAX_READ_BYTES = 16 * 1024


class Refused(Exception):
    """The destination resolves to an address that must not be called."""


class PublicPlainHttp(Refused):
    """A plain-http URL that reaches a public address (no setting allows that)."""


@dataclass(frozen=True)
class OutboundRequest:
    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` names, in resolver order. Literal addresses are not looked up."""
    literal = policy.host_literal_address(host)
    if literal is not None:
        return [literal]
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


def checked_addresses(host: str, port: int, *, allow_private: bool,
                      private_only: bool = False) -> list[str]:
    """The addresses to connect to; raises Refused if any of them is not public (a name with
    one public and one private record is refused, or a retry could land on the private one).

    `private_only` is the rule for a plain-http webhook: the other way round, every address
    must be loopback or private, since an unencrypted call may only stay on one's own machine
    or network (docs/delivery.md, "Outbound safety (SSRF)").
    """
    addresses = resolve(host, port)
    if private_only:
        for address in addresses:
            if policy.address_refusal(address) is None:
                raise PublicPlainHttp(PLAIN_HTTP_PUBLIC.format(
                    where=f"{host} resolves to {address}" if host != address else host))
    if not allow_private:
        for address in addresses:
            reason = policy.address_refusal(address)
            if reason is not None:
                raise Refused(f"Refused: {host} resolves to {address}. {reason}"
                              if host != address else f"Refused: {reason}")
    return addresses


# Said where a person configures a receiver: the refusal alone left them at a wall.
LOCAL_RECEIVERS_HINT = ("To try a receiver on your own machine or network, set "
                        "DELIVERY_ALLOW_PRIVATE_NETWORKS=1 (on by default with DEBUG=1, as "
                        "`make run` runs); keep it off in production.")
PLAIN_HTTP_PUBLIC = ("Refused: {where}, a public address; plain http is only for a receiver on "
                     "loopback or a private network. Use an https URL.")
PLAIN_HTTP_UNRESOLVED = ("Refused: {host} does not resolve now, so it cannot be checked to be on "
                         "loopback or a private network, the only places plain http may go. "
                         "Use an https URL, or an IP address.")


def destination_refusal(url: str, *, allow_private: bool, private_only: bool = False
                        ) -> str | None:
    """The save-time check: why `url`'s host must not be called, or None.

    A name that does not resolve now is accepted: it may be created later, and the same check
    runs again before every send. With `private_only` (a plain-http webhook) it is refused
    instead: plain http is the exception, so it must be shown to stay local.
    """
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        checked_addresses(parts.hostname or "", port, allow_private=allow_private,
                          private_only=private_only)
    except PublicPlainHttp as exc:
        return str(exc)  # no setting helps: the hint would mislead
    except Refused as exc:
        return f"{exc} {LOCAL_RECEIVERS_HINT}"
    except (OSError, UnicodeError, ValueError):
        return PLAIN_HTTP_UNRESOLVED.format(host=parts.hostname) if private_only else None
    return None


def webhook_url_problem(url: str, *, allow_private: bool) -> str | None:
    """Why `url` cannot be a webhook's (or a privacy request's status callback's), or None.

    The spec's webhooks are https. Plain http is accepted only where private receivers are
    allowed, and then only to loopback or private addresses: a public http URL is refused in
    every configuration. The general address check is the caller's, as for postbacks.
    """
    if policy.url_problem(url, schemes=("http", "https")) is not None:
        return policy.url_problem(url, schemes=("http", "https") if allow_private
                                  else ("https",))
    if urlsplit(url).scheme.lower() == "https":
        return None
    local_problem = destination_refusal(url, allow_private=True, private_only=True)
    if allow_private:
        return local_problem
    # The setting's hint only where it would help: a receiver on loopback or a private network.
    https_only = policy.url_problem(url, schemes=("https",))
    return https_only if local_problem else f"{https_only} {LOCAL_RECEIVERS_HINT}"


def send(request: OutboundRequest, *, timeout: float, allow_private: bool,
         plain_http_private_only: bool = False) -> Outcome:
    """One attempt, finished within `timeout` seconds in total (connect, TLS, send, answer).

    With `plain_http_private_only` (webhooks, privacy callbacks) a plain-http URL may reach
    only loopback or private addresses, checked again here as a name's answer may change.
    """
    started = time.monotonic()
    deadline = started + timeout

    def elapsed_ms() -> int:
        return int((time.monotonic() - started) * 1000)

    parts = urlsplit(request.url)
    https = parts.scheme == "https"
    host = parts.hostname or ""
    try:
        port = parts.port or (443 if https else 80)
        addresses = checked_addresses(host, port, allow_private=allow_private,
                                      private_only=plain_http_private_only and not https)
    except Refused as exc:
        return Outcome(error_kind=ErrorKind.REFUSED, error=str(exc), duration_ms=elapsed_ms())
    except (OSError, UnicodeError, ValueError) as exc:
        return Outcome(error_kind=ErrorKind.CONNECTION, error=_unresolved(host, exc),
                       duration_ms=elapsed_ms())

    watchdog = _Watchdog()
    sock: socket.socket | None = None
    try:
        sock = _connect(addresses, port, deadline)
        watchdog.arm(sock, deadline - time.monotonic())
        if https:
            sock = _tls_context(_ca_bundle()).wrap_socket(sock, server_hostname=host)
            watchdog.watch(sock)  # wrapping moved the descriptor to the TLS socket
        connection = _PinnedConnection(sock, host, port)
        connection.request(request.method, _target(parts), body=request.body,
                           headers=_headers(request, parts))
        response = connection.getresponse()
        raw = response.read(MAX_READ_BYTES)
        location = response.getheader("Location")
        status = response.status
    except (OSError, http.client.HTTPException, ValueError) as exc:
        if watchdog.fired or isinstance(exc, TimeoutError):
            return Outcome(error_kind=ErrorKind.TIMEOUT,
                           error=f"Timed out after {timeout:g} s.", duration_ms=elapsed_ms())
        return Outcome(error_kind=ErrorKind.CONNECTION, error=_describe(exc),
                       duration_ms=elapsed_ms())
    finally:
        watchdog.disarm()
        if sock is not None:
            sock.close()
    return Outcome(status_code=status, response_body=_text(raw), location=location,
                   duration_ms=elapsed_ms())


def _connect(addresses: list[str], port: int, deadline: float) -> socket.socket:
    """Connect to the first checked address that answers; never to anything else."""
    error: OSError = ConnectionError("no address to connect to")
    for address in addresses:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("connect")
        try:
            sock = socket.create_connection((address, port), timeout=remaining)
        except TimeoutError:
            raise
        except OSError as exc:
            error = exc
            continue
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        return sock
    raise error


class _Watchdog:
    """Enforces the total budget: a receiver that trickles one byte at a time never lets a
    per-read socket timeout fire, so at the deadline the socket is shut down under it."""

    def __init__(self) -> None:
        self.fired = False
        self._sock: socket.socket | None = None
        self._timer: threading.Timer | None = None

    def watch(self, sock: socket.socket) -> None:
        self._sock = sock

    def arm(self, sock: socket.socket, seconds: float) -> None:
        self._sock = sock
        self._timer = threading.Timer(max(0.0, seconds), self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        self.fired = True
        try:
            # The plain socket method: shutting down the TLS layer from another thread is
            # not safe; cutting the descriptor's traffic is, and wakes the blocked read.
            socket.socket.shutdown(self._sock, socket.SHUT_RDWR)
        except (OSError, TypeError):
            pass

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


class _PinnedConnection(http.client.HTTPConnection):
    """An HTTPConnection over a socket we connected ourselves (to the checked address)."""

    def __init__(self, sock: socket.socket, host: str, port: int):
        super().__init__(host, port, timeout=sock.gettimeout())
        self.sock = sock

    def connect(self) -> None:
        # Reconnecting would look the host up again; one request per connection, no reuse.
        raise http.client.NotConnected("the pinned connection cannot reconnect")


def _target(parts) -> str:
    path = parts.path or "/"
    return f"{path}?{parts.query}" if parts.query else path


def _headers(request: OutboundRequest, parts) -> dict[str, str]:
    host = parts.hostname or ""
    host_header = f"[{host}]" if ":" in host else host
    if parts.port is not None:
        host_header = f"{host_header}:{parts.port}"
    headers = {"Host": host_header, "User-Agent": USER_AGENT, "Connection": "close",
               "Accept": "*/*"}
    if parts.username is not None:
        credentials = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        headers["Authorization"] = "Basic " + base64.b64encode(credentials.encode()).decode()
    headers.update(request.headers)
    if request.body is not None:
        headers["Content-Length"] = str(len(request.body))
    return headers


def _text(raw: bytes) -> str:
    # Plain text, NULs removed (PostgreSQL text cannot hold them), cut to the stored length.
    text = raw.decode("utf-8", errors="replace").replace("\x00", "\ufffd")
    return text[:policy.RESPONSE_BODY_LIMIT]


def _describe(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS certificate not accepted: {exc.verify_message or exc}."
    if isinstance(exc, ssl.SSLError):
        return f"TLS error: {exc.reason or exc}."
    if isinstance(exc, ConnectionRefusedError):
        return "Connection refused."
    if isinstance(exc, http.client.RemoteDisconnected):
        return "The receiver closed the connection without answering."
    if isinstance(exc, ConnectionResetError):
        return "The receiver reset the connection."
    if isinstance(exc, BrokenPipeError):
        return "The receiver closed the connection while the request was being sent."
    if isinstance(exc, http.client.HTTPException):
        return "The receiver's answer is not HTTP."
    # The operating system's words ("No route to host"), never Python's class names.
    words = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return f"Connection error: {words}."[:500]


def _unresolved(host: str, exc: BaseException) -> str:
    if isinstance(exc, socket.gaierror) and exc.errno in (socket.EAI_NONAME,
                                                          getattr(socket, "EAI_NODATA", None)):
        return f"Could not resolve {host}: no such name."
    words = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return f"Could not resolve {host}: {words}."


def _ca_bundle() -> str:
    return os.environ.get("REQUESTS_CA_BUNDLE") or requests.certs.where()


@lru_cache(maxsize=4)
def _tls_context(cafile: str) -> ssl.SSLContext:
    # Loading a CA bundle takes milliseconds; one context per bundle path serves every send.
    return ssl.create_default_context(cafile=cafile)
