"""S3 exports call out through the one outbound client's rule (outbox.http): the endpoint's name
is looked up once per storage and only its checked address is connected to, however the name
answers later (DNS rebinding); a private endpoint is refused unless
OUTBOUND_ALLOW_PRIVATE_NETWORKS allows it; TLS checks the certificate against the name.

moto's S3 server listens on 127.0.0.1; a resolver hook (tests/outbound.py) points the test's
host name at it, and at other addresses in later answers."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
import trustme

from raw_export.storage import S3Storage, StorageError, probe
from tests.delivery.receivers import Reply
from tests.outbound import PUBLIC, Network, tls_receiver

NAME = "exportstore"  # no dot: moto reads a dotted host as a bucket's subdomain


def s3(server, bucket, endpoint_url) -> S3Storage:
    return S3Storage(bucket=bucket, endpoint_url=endpoint_url, region=server.region,
                     access_key_id=server.access_key_id,
                     secret_access_key=server.secret_access_key)


def port_of(server) -> int:
    return urlsplit(server.endpoint_url).port


def test_the_endpoint_is_looked_up_once_and_a_second_answer_is_never_connected_to(
        s3_server, s3_bucket, monkeypatch, tmp_path):
    network = Network(monkeypatch, {NAME: ["127.0.0.1", "127.0.0.2"]})
    storage = s3(s3_server, s3_bucket, f"http://{NAME}:{port_of(s3_server)}")
    source = tmp_path / "part.parquet"
    source.write_bytes(b"rows")
    storage.put_file("raw/part.parquet", source)
    storage.put_bytes("raw/_SUCCESS", b"")
    assert storage.list("raw/") == ["raw/_SUCCESS", "raw/part.parquet"]
    assert storage.exists("raw/part.parquet")
    storage.delete("raw/_SUCCESS")
    assert s3_server.keys(s3_bucket) == ["raw/part.parquet"]
    assert network.lookups == [NAME]
    assert network.addresses_connected() == {"127.0.0.1"}


def test_an_endpoint_answering_public_then_private_is_never_reached(
        s3_server, s3_bucket, monkeypatch, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    network = Network(monkeypatch, {NAME: [PUBLIC, "127.0.0.1"]})
    storage = s3(s3_server, s3_bucket, f"http://{NAME}:{port_of(s3_server)}")
    with pytest.raises(StorageError) as caught:
        storage.put_bytes("raw/_SUCCESS", b"")
    assert caught.value.reason == "unreachable"
    assert network.lookups == [NAME]
    assert network.addresses_connected() == {PUBLIC}
    assert s3_server.keys(s3_bucket) == []


@pytest.mark.parametrize(("endpoint", "answers", "refusal"), [
    ("http://127.0.0.1:{port}", {}, "Refused: 127.0.0.1 is a loopback address."),
    ("http://" + NAME + ":{port}", {NAME: ["10.1.2.3"]},
     f"Refused: {NAME} resolves to 10.1.2.3. 10.1.2.3 is a private address."),
])
def test_a_private_endpoint_is_refused_without_the_setting(
        s3_server, s3_bucket, monkeypatch, settings, endpoint, answers, refusal):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    network = Network(monkeypatch, answers)
    storage = s3(s3_server, s3_bucket, endpoint.format(port=port_of(s3_server)))
    with pytest.raises(StorageError) as caught:
        probe(storage, "raw")
    assert caught.value.reason == "denied"
    assert str(caught.value) == (
        f"{refusal} To allow destinations on your own machine or network, set "
        "OUTBOUND_ALLOW_PRIVATE_NETWORKS=1 (on by default with DEBUG=1, as `make run` runs); "
        "keep it off in production.")
    assert network.connected == []


def test_a_private_endpoint_is_written_to_with_the_setting(s3_server, s3_bucket, monkeypatch):
    # s3_server allows private destinations, as an operator with a MinIO next door would.
    Network(monkeypatch, {NAME: ["127.0.0.1"]})
    s3(s3_server, s3_bucket, f"http://{NAME}:{port_of(s3_server)}").put_bytes("k", b"1")
    assert s3_server.keys(s3_bucket) == ["k"]


@pytest.fixture
def ca(tmp_path, monkeypatch):
    authority = trustme.CA()
    path = tmp_path / "bundle.pem"
    authority.cert_pem.write_to_path(str(path))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(path))
    return authority


def test_tls_to_the_checked_address_checks_the_certificate_against_the_name(
        s3_server, monkeypatch, ca):
    Network(monkeypatch, {NAME: ["127.0.0.1"]})
    impostor = tls_receiver(ca, "other.example")
    genuine = tls_receiver(ca, NAME, default=Reply(200, b""))
    try:
        with pytest.raises(StorageError) as caught:
            s3(s3_server, "bucket-1", f"https://{NAME}:{impostor.port}").put_bytes("k", b"1")
        s3(s3_server, "bucket-1", f"https://{NAME}:{genuine.port}").put_bytes("k", b"1")
    finally:
        impostor.stop()
        genuine.stop()
    assert caught.value.reason == "unreachable" and "TLS" in str(caught.value)
    assert impostor.requests == []
    [request] = genuine.requests
    assert (request.method, request.path) == ("PUT", "/bucket-1/k")
    assert request.headers["Host"] == f"{NAME}:{genuine.port}"
    assert request.headers["Authorization"].startswith("AWS4-HMAC-SHA256 ")
