"""A real S3-protocol server for the tests: moto's server mode (`moto[server]`), started as a
process of its own on a free loopback port and ended after the session.

Authentication is on, as on a real store: the server lets the first few requests through
unsigned (INITIAL_NO_AUTH_ACTION_COUNT), which make an IAM user allowed everything and its
access key; every later request must be signed with that key, so a wrong key or secret is
refused with the same error codes AWS sends (InvalidAccessKeyId, SignatureDoesNotMatch).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from tests.processes import free_port

REGION = "us-east-1"
SETUP_REQUESTS = 3  # create the user, give it a policy, make its access key
ALLOW_ALL = {"Version": "2012-10-17",
             "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}


@dataclass
class S3Server:
    endpoint_url: str
    access_key_id: str
    secret_access_key: str
    region: str = REGION

    def client(self, **overrides):
        import boto3

        options = dict(endpoint_url=self.endpoint_url, region_name=self.region,
                       aws_access_key_id=self.access_key_id,
                       aws_secret_access_key=self.secret_access_key)
        options.update(overrides)
        return boto3.session.Session().client("s3", **options)

    def new_bucket(self) -> str:
        name = f"test-{uuid.uuid4().hex[:20]}"
        self.client().create_bucket(Bucket=name)
        return name

    def keys(self, bucket: str, prefix: str = "") -> list[str]:
        pages = self.client().get_paginator("list_objects_v2").paginate(
            Bucket=bucket, Prefix=prefix)
        return sorted(item["Key"] for page in pages for item in page.get("Contents", ()))


def start_moto(log_path: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {"INITIAL_NO_AUTH_ACTION_COUNT": str(SETUP_REQUESTS), "PATH": "/usr/bin:/bin",
           "AWS_DEFAULT_REGION": REGION}
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            requests.get(f"{endpoint}/moto-api/data.json", timeout=1)
            return process, endpoint
        except requests.ConnectionError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                output = log_path.read_text()
                raise RuntimeError(f"moto's server did not start:\n{output}") from None
            time.sleep(0.1)


def make_user(endpoint: str) -> tuple[str, str]:
    import boto3

    iam = boto3.session.Session().client(
        "iam", endpoint_url=endpoint, region_name=REGION, aws_access_key_id="setup",
        aws_secret_access_key="setup")
    iam.create_user(UserName="exporter")
    iam.put_user_policy(UserName="exporter", PolicyName="all",
                        PolicyDocument=json.dumps(ALLOW_ALL))
    key = iam.create_access_key(UserName="exporter")["AccessKey"]
    return key["AccessKeyId"], key["SecretAccessKey"]


@pytest.fixture(scope="session")
def _moto_process(tmp_path_factory) -> S3Server:
    log_path = tmp_path_factory.mktemp("moto") / "moto.log"
    process, endpoint = start_moto(log_path)
    try:
        access_key_id, secret = make_user(endpoint)
        yield S3Server(endpoint_url=endpoint, access_key_id=access_key_id,
                       secret_access_key=secret)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def s3_server(_moto_process, settings) -> S3Server:
    """moto's S3 server (one for the session). It is on loopback, as a MinIO on the operator's
    own machine would be, so a test that uses it allows private endpoints
    (RAW_EXPORT_ALLOW_PRIVATE_ENDPOINTS, off in production)."""
    settings.RAW_EXPORT_ALLOW_PRIVATE_ENDPOINTS = True
    return _moto_process


@pytest.fixture
def s3_bucket(s3_server) -> str:
    return s3_server.new_bucket()


class Outage:
    """A loopback TCP forwarder in front of the S3 server that can be taken down and brought
    back on the same port: the store as a destination sees it through an outage."""

    def __init__(self, target: str):
        self.target_port = int(target.rsplit(":", 1)[1])
        self.port = free_port()
        self.endpoint_url = f"http://127.0.0.1:{self.port}"
        self._listener: socket.socket | None = None
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()

    def up(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(16)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        """Refuse new connections and cut the open ones."""
        with self._lock:
            if self._listener is not None:
                # shutdown() wakes the thread blocked in accept(); close() alone would not.
                try:
                    self._listener.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                self._listener.close()
                self._listener = None
            for sock in self._open:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
            self._open.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            with self._lock:
                self._open += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


@pytest.fixture
def s3_outage(s3_server):
    outage = Outage(s3_server.endpoint_url)
    outage.up()
    yield outage
    outage.down()
