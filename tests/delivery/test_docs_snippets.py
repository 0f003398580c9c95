"""The signature checks shown in docs/delivery.md, run against real deliveries: the Python
snippet in this process, the Node.js snippet with node."""

import base64
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.delivery.helpers import attempt_all, install_event, make_webhook, publish

pytestmark = pytest.mark.django_db

DOC = Path(__file__).resolve().parents[2] / "docs" / "delivery.md"


def snippet(name: str) -> str:
    match = re.search(rf"<!-- snippet: {name} -->\n```\w+\n(.*?)```", DOC.read_text(), re.S)
    assert match, f"docs/delivery.md has no {name} snippet"
    return match.group(1)


@pytest.fixture
def delivered(app, tls_receiver):
    _webhook, secret = make_webhook(app, tls_receiver.url("/hook"))
    publish(install_event(app))
    attempt_all()
    [request] = tls_receiver.requests
    return secret, request


def test_the_python_snippet_accepts_a_delivery_and_rejects_a_tampered_one(delivered):
    secret, request = delivered
    namespace: dict = {}
    exec(compile(snippet("python"), "docs/delivery.md", "exec"), namespace)
    verify_x, verify_std = namespace["verify_x_signature"], namespace["verify_standard_webhook"]
    assert verify_x(secret, request.body, request.headers["X-Signature"])
    assert verify_std(secret, request.body, request.headers)
    tampered = request.body.replace(b"gaid-1234", b"gaid-9999")
    assert not verify_x(secret, tampered, request.headers["X-Signature"])
    assert not verify_std(secret, tampered, request.headers)
    assert not verify_x("whsec_" + "A" * 44, request.body, request.headers["X-Signature"])


@pytest.mark.node
def test_the_node_snippet_accepts_a_delivery_and_rejects_a_tampered_one(delivered, tmp_path):
    node = shutil.which("node")
    secret, request = delivered
    (tmp_path / "verify.js").write_text(snippet("node"))
    (tmp_path / "main.js").write_text("""
const { verifyXSignature, verifyStandardWebhook } = require("./verify.js");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const body = Buffer.from(input.body, "base64");
const tampered = Buffer.from(input.tampered, "base64");
console.log(JSON.stringify([
  verifyXSignature(input.secret, body, input.headers["x-signature"]),
  verifyStandardWebhook(input.secret, body, input.headers),
  verifyXSignature(input.secret, tampered, input.headers["x-signature"]),
  verifyStandardWebhook(input.secret, tampered, input.headers),
]));
""")
    headers = {k.lower(): v for k, v in request.headers.items()}
    payload = json.dumps({
        "secret": secret, "headers": headers,
        "body": base64.b64encode(request.body).decode(),
        "tampered": base64.b64encode(request.body.replace(b"android", b"ios")).decode()})
    result = subprocess.run([node, str(tmp_path / "main.js")], input=payload, text=True,
                            capture_output=True, timeout=30, check=True)
    assert json.loads(result.stdout) == [True, True, False, False]
