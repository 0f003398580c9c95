"""The one outbound client (outbox.http): a destination is looked up once, refused when it is not
public (unless OUTBOUND_ALLOW_PRIVATE_NETWORKS), connected to at the address that was checked
and nowhere else, and its certificate is checked against the name, for one request (`send`) and
for a client's keep-alive pools (`pinned_pools`)."""

from __future__ import annotations

import pytest
import trustme
import urllib3

from outbox import http
from tests.delivery.receivers import Receiver, Reply
from tests.outbound import PUBLIC, Network, tls_receiver

NAME = "hooks.partner.example"


@pytest.fixture(scope="module")
def ca():
    return trustme.CA()


@pytest.fixture
def trusted(ca, tmp_path, monkeypatch):
    path = tmp_path / "bundle.pem"
    ca.cert_pem.write_to_path(str(path))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(path))


@pytest.fixture
def receiver():
    started = Receiver().start()
    yield started
    started.stop()


@pytest.fixture
def private_allowed(settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True


def get(url: str) -> http.Answer:
    return http.send(http.OutboundRequest("GET", url), timeout=5)


# --- send ---------------------------------------------------------------------------------------

def test_a_name_that_answers_public_then_private_is_never_connected_to_at_the_second_answer(
        monkeypatch, receiver):
    network = Network(monkeypatch, {NAME: [PUBLIC, "127.0.0.1"]})
    answer = get(receiver.url("/hook", host=NAME))
    assert answer.failure == http.Failure.CONNECTION and answer.status_code is None
    assert network.lookups == [NAME]
    assert network.connected == [(PUBLIC, receiver.port)]
    assert receiver.requests == []


def test_a_name_on_a_private_network_is_refused_without_the_setting(monkeypatch, receiver):
    network = Network(monkeypatch, {NAME: ["10.0.0.5"]})
    answer = get(receiver.url("/hook", host=NAME))
    assert answer.failure == http.Failure.REFUSED
    assert answer.error == f"Refused: {NAME} resolves to 10.0.0.5. 10.0.0.5 is a private address."
    assert network.connected == []


def test_a_name_on_a_private_network_is_called_with_the_setting(
        monkeypatch, receiver, private_allowed):
    network = Network(monkeypatch, {NAME: ["127.0.0.1", "127.0.0.2"]})
    answer = get(receiver.url("/hook", host=NAME))
    assert answer.status_code == 200 and answer.body == "ok"
    [request] = receiver.requests
    assert request.headers["Host"] == f"{NAME}:{receiver.port}"
    assert network.addresses_connected() == {"127.0.0.1"}


def test_tls_to_the_checked_address_still_checks_the_certificate_against_the_name(
        monkeypatch, ca, trusted, private_allowed):
    Network(monkeypatch, {NAME: ["127.0.0.1"]})
    impostor = tls_receiver(ca, "other.example")
    try:
        answer = get(impostor.url("/hook", host=NAME))
    finally:
        impostor.stop()
    assert answer.failure == http.Failure.CONNECTION
    assert answer.error.startswith("TLS certificate not accepted: Hostname mismatch")
    assert impostor.requests == []


def test_tls_to_the_checked_address_accepts_a_certificate_for_the_name(
        monkeypatch, ca, trusted, private_allowed):
    Network(monkeypatch, {NAME: ["127.0.0.1"]})
    genuine = tls_receiver(ca, NAME)
    try:
        answer = get(genuine.url("/hook", host=NAME))
    finally:
        genuine.stop()
    assert answer.status_code == 200
    assert [request.headers["Host"] for request in genuine.requests] == [
        f"{NAME}:{genuine.port}"]


def test_the_save_time_check_says_how_to_allow_private_destinations(monkeypatch):
    Network(monkeypatch, {NAME: ["192.168.1.20"]})
    assert http.destination_refusal(f"https://{NAME}/hook") == (
        f"Refused: {NAME} resolves to 192.168.1.20. 192.168.1.20 is a private address. "
        f"{http.LOCAL_DESTINATIONS_HINT}")
    assert "OUTBOUND_ALLOW_PRIVATE_NETWORKS=1" in http.LOCAL_DESTINATIONS_HINT


# --- Plain http: loopback and private addresses only -----------------------------------------

def post_plain(url: str) -> http.Answer:
    return http.send(http.OutboundRequest("POST", url, body=b"{}"), timeout=5,
                     plain_http_private_only=True)


def test_plain_http_that_must_stay_private_is_refused_when_the_name_now_answers_public(
        monkeypatch, receiver, private_allowed):
    network = Network(monkeypatch, {NAME: [PUBLIC]})
    answer = post_plain(receiver.url("/hook", host=NAME))
    assert answer.failure == http.Failure.REFUSED and answer.status_code is None
    assert answer.error == (f"Refused: {NAME} resolves to {PUBLIC}, a public address; plain http "
                            "is only for a receiver on loopback or a private network. Use an "
                            "https URL.")
    assert network.connected == [] and receiver.requests == []


def test_plain_http_that_must_stay_private_reaches_a_private_receiver(
        monkeypatch, receiver, private_allowed):
    Network(monkeypatch, {NAME: ["127.0.0.1"]})
    answer = post_plain(receiver.url("/hook", host=NAME))
    assert answer.status_code == 200 and len(receiver.requests) == 1


def test_https_is_not_held_to_the_plain_http_rule(monkeypatch):
    network = Network(monkeypatch, {NAME: [PUBLIC]})
    answer = post_plain(f"https://{NAME}/hook")
    assert answer.failure == http.Failure.CONNECTION and answer.error == "Connection refused."
    assert network.connected == [(PUBLIC, 443)]


def test_the_save_time_plain_http_check_refuses_a_name_that_does_not_resolve():
    assert http.plain_http_destination_refusal("http://hooks.not-resolvable.invalid/h") == (
        "Refused: hooks.not-resolvable.invalid does not resolve now, so it cannot be checked to "
        "be on loopback or a private network, the only places plain http may go. Use an https "
        "URL, or an IP address.")


def test_the_save_time_plain_http_check_ignores_the_setting(monkeypatch, settings):
    Network(monkeypatch, {NAME: ["10.0.0.5"]})
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    assert http.plain_http_destination_refusal(f"http://{NAME}:8080/hook") is None


# --- pinned_pools ---------------------------------------------------------------------------------

def test_a_pool_never_connects_to_a_second_answer(monkeypatch, receiver):
    network = Network(monkeypatch, {NAME: [PUBLIC, "127.0.0.1"]})
    [pool] = http.pinned_pools("http", NAME, receiver.port, timeout=5)
    with pytest.raises(urllib3.exceptions.NewConnectionError):
        pool.urlopen("GET", "/hook", headers={"Host": NAME}, retries=False)
    assert network.lookups == [NAME]
    assert network.connected == [(PUBLIC, receiver.port)]
    assert receiver.requests == []


def test_a_pool_refuses_a_private_name_without_the_setting(monkeypatch):
    Network(monkeypatch, {NAME: ["169.254.169.254"]})
    with pytest.raises(http.Refused, match="link-local"):
        http.pinned_pools("https", NAME, 443, timeout=5)


def test_a_pool_reconnects_to_its_checked_address_without_a_second_lookup(
        monkeypatch, receiver, private_allowed):
    network = Network(monkeypatch, {NAME: ["127.0.0.1", "127.0.0.2"]})
    [pool] = http.pinned_pools("http", NAME, receiver.port, timeout=5)
    for _ in range(3):  # the receiver closes each connection: every request reconnects
        response = pool.urlopen("GET", "/hook", headers={"Host": NAME}, retries=False)
        assert response.status == 200
    assert len(receiver.requests) == 3
    assert network.lookups == [NAME]
    assert network.addresses_connected() == {"127.0.0.1"}


def test_a_pool_checks_the_certificate_against_the_name(monkeypatch, ca, trusted,
                                                         private_allowed):
    Network(monkeypatch, {NAME: ["127.0.0.1"]})
    impostor = tls_receiver(ca, "other.example")
    genuine = tls_receiver(ca, NAME, default=Reply(200, b"genuine"))
    try:
        [refused] = http.pinned_pools("https", NAME, impostor.port, timeout=5)
        with pytest.raises(urllib3.exceptions.SSLError, match="match"):
            refused.urlopen("GET", "/", headers={"Host": NAME}, retries=False)
        [accepted] = http.pinned_pools("https", NAME, genuine.port, timeout=5)
        response = accepted.urlopen("GET", "/", headers={"Host": NAME}, retries=False)
    finally:
        impostor.stop()
        genuine.stop()
    assert response.status == 200 and response.data == b"genuine"
    assert impostor.requests == []


# --- The setting ----------------------------------------------------------------------------------

def test_the_setting_left_on_in_production_is_a_warning(settings):
    settings.DEBUG = False
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    [warning] = http.private_networks_check()
    assert warning.id == "outbox.W001" and "OUTBOUND_ALLOW_PRIVATE_NETWORKS" in warning.msg
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    assert http.private_networks_check() == []
