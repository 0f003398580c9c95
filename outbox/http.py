"""The one outbound HTTP client (docs/delivery.md, "Outbound safety (SSRF)"): postbacks,
webhooks, privacy status callbacks, Apple's AdServices, Google's and Meta's APIs and uploads to
S3-compatible stores all call out through here, under one address rule and one setting.

For every destination the host is resolved once; each address it resolves to must be public
(outbox.addresses) unless OUTBOUND_ALLOW_PRIVATE_NETWORKS is on, and, for a plain-http webhook or
privacy callback, loopback or private whatever the setting says; and the connection goes to an
address that was checked, never through a second lookup, so a DNS answer that changes between
the check and the connect (DNS rebinding) cannot reach an internal host. TLS still verifies the
certificate against the host name (SNI and the name check use the name, not the address), with
the CA bundle REQUESTS_CA_BUNDLE names, else requests' bundled one. Environment proxies are not
used: a proxy would make the address check meaningless.

Two ways to call out:
- `send`: one request on a connection of its own, finished within a total time budget, without
  following redirects; never raises, returns an `Answer`. Built on http.client over a socket
  connected here, because requests (urllib3) resolves the name again when it connects.
- `pinned_pools`: keep-alive connection pools (urllib3) to the checked addresses of one host,
  for a client that makes many requests to it (boto3's S3 uploads, raw_export/storage.py).
"""

from __future__ import annotations

import base64
import enum
import http.client
import os
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import SplitResult, unquote, urlsplit

import requests.certs
from django.conf import settings
from django.core import checks

from outbox.addresses import address_refusal, host_literal_address, plain_http_refusal
from outbox.replies import text

MAX_READ_BYTES = 16 * 1024
USER_AGENT = "attribution/1.0"  # callers name themselves (delivery, Apple Ads) in their headers
DEFAULT_PORTS = {"http": 80, "https": 443}

# Said wherever a refusal reaches a person who can act on it (a save, a destination test, a
# platform call's error): the bare "Refused: 127.0.0.1 is a loopback address" left people at a
# wall.
LOCAL_DESTINATIONS_HINT = ("To allow destinations on your own machine or network, set "
                           "OUTBOUND_ALLOW_PRIVATE_NETWORKS=1 (on by default with DEBUG=1, as "
                           "`make run` runs); keep it off in production.")


def private_networks_allowed() -> bool:
    """OUTBOUND_ALLOW_PRIVATE_NETWORKS: destinations may be loopback, private or link-local
    (development and tests), and webhooks and privacy callbacks may be plain http."""
    return settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS


class Refused(Exception):
    """The destination resolves to an address that must not be called."""


class PublicPlainHttp(Refused):
    """A plain-http URL that reaches a public address (no setting allows that)."""


PLAIN_HTTP_UNRESOLVED = ("Refused: {host} does not resolve now, so it cannot be checked to be on "
                         "loopback or a private network, the only places plain http may go. "
                         "Use an https URL, or an IP address.")


@dataclass(frozen=True)
class OutboundRequest:
    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None


class Failure(enum.StrEnum):
    """Why a call got no answer."""

    REFUSED = "refused"  # the address rule refused the destination; nothing was sent
    CONNECTION = "connection"
    TIMEOUT = "timeout"


@dataclass(frozen=True)
class Answer:
    """One call as the client saw it: a status and body, or a failure with no answer."""

    status_code: int | None = None
    body: str = ""  # text, NUL-free, from at most the caller's read limit of bytes
    location: str | None = None
    # Retry-After as sent (seconds or an HTTP date): a platform's 429 says when to come back.
    retry_after: str | None = None
    failure: Failure | None = None
    error: str | None = None
    duration_ms: int = 0


# --- The address rule ---------------------------------------------------------------------------

def resolve(host: str, port: int) -> list[str]:
    """Every address `host` names, in resolver order. Literal addresses are not looked up."""
    literal = host_literal_address(host)
    if literal is not None:
        return [literal]
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


def checked_addresses(host: str, port: int, *, private_only: bool = False) -> list[str]:
    """The addresses to connect to, resolved once; raises Refused if any of them is not public
    (a name with one public and one private record is refused, or a retry could land on the
    private one) and private networks are not allowed. OSError when the name does not
    resolve.

    `private_only` is the rule for plain http to a webhook or privacy callback: the other way
    round, every address must be loopback or private (PublicPlainHttp otherwise), since an
    unencrypted call may only stay on one's own machine or network.
    """
    addresses = resolve(host, port)
    if private_only:
        reason = plain_http_refusal(host, addresses)
        if reason is not None:
            raise PublicPlainHttp(reason)
    if not private_networks_allowed():
        for address in addresses:
            reason = address_refusal(address)
            if reason is not None:
                raise Refused(f"Refused: {host} resolves to {address}. {reason}"
                              if host != address else f"Refused: {reason}")
    return addresses


def destination_refusal(url: str) -> str | None:
    """The save-time check: why `url`'s host must not be called (with the way to allow it), or
    None.

    A name that does not resolve now is accepted: it may be created later, and the same check
    runs again before every call.
    """
    parts = urlsplit(url)
    try:
        checked_addresses(parts.hostname or "", _port(parts))
    except Refused as exc:
        return f"{exc} {LOCAL_DESTINATIONS_HINT}"
    except (OSError, UnicodeError, ValueError):
        return None
    return None


def plain_http_destination_refusal(url: str) -> str | None:
    """The save-time check of a plain-http webhook or privacy callback: why `url` may not be
    called in clear (its host is, or resolves to, a public address), or None when every address
    is loopback or private. Whether private networks are allowed at all is the caller's check.

    Unlike `destination_refusal`, a name that does not resolve now is refused: plain http is the
    exception, so it has to be shown to stay local.
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        addresses = resolve(host, _port(parts))
    except (OSError, UnicodeError, ValueError):
        return PLAIN_HTTP_UNRESOLVED.format(host=host)
    return plain_http_refusal(host, addresses)


def host_header(url: str) -> str:
    """The Host header of `url`: the name, bracketed when IPv6, with the port unless it is the
    scheme's default (as requests and botocore's signature write it)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    if parts.port is not None and parts.port != DEFAULT_PORTS.get(parts.scheme):
        host = f"{host}:{parts.port}"
    return host


def _port(parts: SplitResult) -> int:
    return parts.port or DEFAULT_PORTS.get(parts.scheme, 80)


# --- One request ------------------------------------------------------------------------------

def send(request: OutboundRequest, *, timeout: float, read_limit: int = MAX_READ_BYTES,
         plain_http_private_only: bool = False) -> Answer:
    """One attempt, finished within `timeout` seconds in total (resolve, connect, TLS, send,
    answer), keeping at most `read_limit` bytes of the answer. Never raises.

    With `plain_http_private_only` (webhooks, privacy callbacks) a plain-http URL may reach only
    loopback or private addresses, checked again here as a name's answer may change.
    """
    started = time.monotonic()
    deadline = started + timeout

    def elapsed_ms() -> int:
        return int((time.monotonic() - started) * 1000)

    parts = urlsplit(request.url)
    https = parts.scheme == "https"
    host = parts.hostname or ""
    try:
        port = _port(parts)
        addresses = checked_addresses(host, port,
                                      private_only=plain_http_private_only and not https)
    except Refused as exc:
        return Answer(failure=Failure.REFUSED, error=str(exc), duration_ms=elapsed_ms())
    except (OSError, UnicodeError, ValueError) as exc:
        return Answer(failure=Failure.CONNECTION, error=_unresolved(host, exc),
                      duration_ms=elapsed_ms())

    watchdog = _Watchdog()
    sock: socket.socket | None = None
    try:
        sock = _connect(addresses, port, deadline)
        watchdog.arm(sock, deadline - time.monotonic())
        if https:
            sock = _tls_context(ca_bundle()).wrap_socket(sock, server_hostname=host)
            watchdog.watch(sock)  # wrapping moved the descriptor to the TLS socket
        connection = _PinnedConnection(sock, host, port)
        connection.request(request.method, request_target(parts), body=request.body,
                           headers=_headers(request, parts))
        response = connection.getresponse()
        raw = response.read(read_limit)
        location = response.getheader("Location")
        retry_after = response.getheader("Retry-After")
        status = response.status
    except (OSError, http.client.HTTPException, ValueError) as exc:
        if watchdog.fired or isinstance(exc, TimeoutError):
            return Answer(failure=Failure.TIMEOUT, error=f"Timed out after {timeout:g} s.",
                          duration_ms=elapsed_ms())
        return Answer(failure=Failure.CONNECTION, error=_describe(exc),
                      duration_ms=elapsed_ms())
    finally:
        watchdog.disarm()
        if sock is not None:
            sock.close()
    return Answer(status_code=status, body=text(raw, read_limit), location=location,
                  retry_after=retry_after, duration_ms=elapsed_ms())


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


def request_target(parts: SplitResult) -> str:
    """What the request line names: the path (at least /) and the query."""
    path = parts.path or "/"
    return f"{path}?{parts.query}" if parts.query else path


def _headers(request: OutboundRequest, parts: SplitResult) -> dict[str, str]:
    headers = {"Host": host_header(request.url), "User-Agent": USER_AGENT,
               "Connection": "close", "Accept": "*/*"}
    if parts.username is not None:
        credentials = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        headers["Authorization"] = "Basic " + base64.b64encode(credentials.encode()).decode()
    headers.update(request.headers)
    if request.body is not None:
        headers["Content-Length"] = str(len(request.body))
    return headers


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


def ca_bundle() -> str:
    return os.environ.get("REQUESTS_CA_BUNDLE") or requests.certs.where()


@lru_cache(maxsize=4)
def _tls_context(cafile: str) -> ssl.SSLContext:
    # Loading a CA bundle takes milliseconds; one context per bundle path serves every send.
    return ssl.create_default_context(cafile=cafile)


# --- Pools for a client of many requests ----------------------------------------------------------

def pinned_pools(scheme: str, host: str, port: int, *, timeout, maxsize: int = 1,
                 pool_classes: tuple[type, type] | None = None) -> list:
    """One keep-alive pool (urllib3) per checked address of `host`, in resolver order. A pool's
    host is its address, so it connects (and reconnects) there and nowhere else; SNI and the
    certificate's name check use `host`. The caller sets the Host header (`host_header`) and
    moves to the next pool when one cannot connect. `pool_classes`: (http, https) subclasses of
    urllib3's pools (botocore's, for S3). Raises Refused, or OSError when the name does not
    resolve."""
    import urllib3

    http_pool, https_pool = pool_classes or (urllib3.HTTPConnectionPool,
                                             urllib3.HTTPSConnectionPool)
    addresses = checked_addresses(host, port)
    if scheme != "https":
        return [http_pool(address, port, timeout=timeout, maxsize=maxsize, retries=False)
                for address in addresses]
    # A context of their own: urllib3 adjusts the context it is handed, and the one send()
    # shares must keep checking names.
    context = ssl.create_default_context(cafile=ca_bundle())
    return [https_pool(address, port, timeout=timeout, maxsize=maxsize, retries=False,
                       server_hostname=host, ssl_context=context)
            for address in addresses]


# --- The setting's system check ---------------------------------------------------------------

def private_networks_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    if private_networks_allowed() and not settings.DEBUG:
        return [checks.Warning(
            "OUTBOUND_ALLOW_PRIVATE_NETWORKS is on: postbacks, webhooks, callbacks, platform "
            "calls and exports may call loopback, private and cloud-metadata addresses.",
            hint="Use it for local development and tests only.",
            id="outbox.W001",
        )]
    return []
