"""A real S3-protocol server for the tests: moto's server mode (`moto[server]`), started as a
process of its own on a free loopback port and ended after the session.

Authentication is on, as on a real store: the server lets the first few requests through
unsigned (INITIAL_NO_AUTH_ACTION_COUNT), which make an IAM user allowed everything and its
access key; every later request must be signed with that key, so a wrong key or secret is
refused with the same error codes AWS sends (InvalidAccessKeyId, SignatureDoesNotMatch).
"""

from __future__ import annotations

import json
import subprocess
import sys
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
def s3_server(tmp_path_factory) -> S3Server:
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
def s3_bucket(s3_server) -> str:
    return s3_server.new_bucket()
