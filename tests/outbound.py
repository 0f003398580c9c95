"""The network as the outbound client's tests need it: a resolver hook that points host names at
the addresses a test chooses, one answer per lookup (so the answer can change between the
address check and the connect, as in DNS rebinding), and a record of every connect.

Connects to public addresses are refused here, as an unreachable internet host would refuse
them, so nothing leaves the machine; every other connect (the local receivers, Redis, the S3
server) goes through as usual. Names the test did not choose are resolved as usual.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
import ssl

from outbox.addresses import address_refusal
from tests.delivery.receivers import Receiver, Reply

PUBLIC = "93.184.216.34"  # a public address; here nothing ever answers on it


class Network:
    def __init__(self, monkeypatch, answers: dict[str, list[str]]):
        """`answers`: for each name, the address of each lookup in turn; the last one repeats."""
        self.lookups: list[str] = []
        self.connected: list[tuple[str, int]] = []
        self._answers = {name: list(queue) for name, queue in answers.items()}
        real_getaddrinfo = socket.getaddrinfo
        real_connect = socket.socket.connect
        network = self

        def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
            name = host.decode() if isinstance(host, bytes) else host
            if name not in network._answers:
                return real_getaddrinfo(host, port, family, type, proto, flags)
            network.lookups.append(name)
            queue = network._answers[name]
            address = queue.pop(0) if len(queue) > 1 else queue[0]
            number = int(port or 0)
            if ipaddress.ip_address(address).version == 6:
                return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, number, 0, 0))]
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, number))]

        def connect(sock, address):
            if isinstance(address, tuple):
                network.connected.append((address[0], address[1]))
                if address_refusal(address[0]) is None:
                    raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
            return real_connect(sock, address)

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
        monkeypatch.setattr(socket.socket, "connect", connect)

    def addresses_connected(self) -> set[str]:
        return {address for address, _port in self.connected}


def tls_receiver(ca, *names: str, replies: tuple[Reply, ...] = (),
                 default: Reply | None = None) -> Receiver:
    """A started HTTPS receiver on 127.0.0.1 whose certificate (from `ca`) names `names` only;
    the caller stops it."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(*names).configure_cert(context)
    return Receiver(replies=list(replies), default=default, tls=context).start()
