"""Real local receivers for delivery tests: a threaded http.server on 127.0.0.1, plain or TLS
with a certificate from a trustme CA (trusted by the sender through REQUESTS_CA_BUNDLE).

Each receiver records every request it gets (method, path, headers, body) and answers from a
script of responses, so a test can say "fail twice, then succeed" or "be slower than the
timeout" and then assert on what actually arrived.
"""

from __future__ import annotations

import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    body: bytes = b"ok"
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    at: float


class Receiver:
    def __init__(self, *, replies: list[Reply] | None = None, default: Reply | None = None,
                 tls: ssl.SSLContext | None = None):
        self.requests: list[Received] = []
        self._replies = list(replies or [])
        self._default = default or Reply()
        self._lock = threading.Lock()
        self.arrived = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with receiver._lock:
                    receiver.requests.append(Received(
                        self.command, self.path, {k: v for k, v in self.headers.items()},
                        body, time.monotonic()))
                    reply = receiver._replies.pop(0) if receiver._replies else receiver._default
                receiver.arrived.set()
                if reply.delay:
                    time.sleep(reply.delay)
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.send_header("Connection", "close")
                    self.end_headers()
                    self.wfile.write(reply.body)
                except OSError:
                    pass  # the sender gave up (timeout) or died; nothing to answer
                self.close_connection = True

            do_GET = do_POST = do_PUT = _handle

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.scheme = "https" if tls is not None else "http"
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                        daemon=True)

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def start(self) -> Receiver:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def wait_for(self, count: int, timeout: float = 15.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.requests) >= count:
                    return list(self.requests)
            time.sleep(0.02)
        raise AssertionError(f"expected {count} requests, got {len(self.requests)}")
