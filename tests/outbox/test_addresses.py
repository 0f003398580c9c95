"""The address rule of every outbound call (outbox.addresses), as plain functions: which
addresses are refused, and every spelling of an IP literal."""

import pytest

from outbox import addresses

# The addresses docs/delivery.md refuses ("Outbound safety (SSRF)"), in every spelling, plus
# the neighbours of each category.
REFUSED = [
    "127.0.0.1", "10.0.0.1", "169.254.169.254", "100.64.0.1", "::1", "::ffff:127.0.0.1",
    "172.16.5.4", "192.168.1.1", "0.0.0.0", "224.0.0.1", "240.0.0.1", "255.255.255.255",
    "fe80::1", "fc00::1", "::", "ff02::1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
    "64:ff9b::7f00:1", "2002:7f00:1::", "198.18.0.1", "192.0.2.1",
]


@pytest.mark.parametrize("address", REFUSED)
def test_non_public_addresses_are_refused(address):
    assert addresses.address_refusal(address) is not None


def test_refusals_name_the_category():
    assert "loopback" in addresses.address_refusal("127.0.0.1")
    assert "private" in addresses.address_refusal("10.0.0.1")
    assert "link-local" in addresses.address_refusal("169.254.169.254")
    assert "carrier-grade NAT" in addresses.address_refusal("100.64.0.1")
    assert "loopback" in addresses.address_refusal("::ffff:127.0.0.1")
    assert "multicast" in addresses.address_refusal("224.0.0.1")


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111",
                                     "::ffff:8.8.8.8"])
def test_public_addresses_pass(address):
    assert addresses.address_refusal(address) is None


@pytest.mark.parametrize("host,address", [
    ("127.0.0.1", "127.0.0.1"), ("[::1]", "::1"), ("::ffff:127.0.0.1", "::ffff:127.0.0.1"),
    ("::ffff:7f00:1", "::ffff:127.0.0.1"),
    ("0x7f000001", "127.0.0.1"), ("2130706433", "127.0.0.1"), ("0177.0.0.1", "127.0.0.1"),
    ("127.1", "127.0.0.1"), ("0x7f.1", "127.0.0.1"),
])
def test_every_spelling_of_an_ip_literal_is_recognised(host, address):
    assert addresses.host_literal_address(host) == address


@pytest.mark.parametrize("host", ["example.com", "cafe.be", "deadbeef.example", "10.com"])
def test_names_are_not_taken_for_addresses(host):
    assert addresses.host_literal_address(host) is None


@pytest.mark.parametrize("found", [["127.0.0.1"], ["10.0.0.5", "::1"], ["192.168.1.20"],
                                   ["169.254.10.10"]])
def test_plain_http_may_go_to_loopback_and_private_addresses(found):
    assert addresses.plain_http_refusal("hooks.lan", found) is None


def test_plain_http_to_a_public_address_is_refused_naming_it():
    assert addresses.plain_http_refusal("93.184.216.34", ["93.184.216.34"]) == (
        "Refused: 93.184.216.34, a public address; plain http is only for a receiver on "
        "loopback or a private network. Use an https URL.")


def test_plain_http_to_a_name_with_one_public_answer_is_refused_naming_the_answer():
    assert addresses.plain_http_refusal("hooks.lan", ["10.0.0.5", "8.8.8.8"]).startswith(
        "Refused: hooks.lan resolves to 8.8.8.8, a public address;")
