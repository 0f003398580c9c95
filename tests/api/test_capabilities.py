"""The one permission rule (attribution_site/capabilities.py), read as a table: no HTTP, no
database. What a member may do is today's line; the API and console tests walk the 403s."""

import pytest

from accounts.models import User
from attribution_site import capabilities
from attribution_site.capabilities import (
    ADMIN,
    ADMINISTER,
    CONFIGURE,
    CONFIGURE_APPS,
    EDIT_MARKETING,
    EDIT_RATES,
    MEMBER,
    READ,
    may,
)


def test_the_table_knows_every_role_the_accounts_store():
    assert set(capabilities.ROLES) == set(User.Role.values)


def test_every_capability_is_held_and_described():
    assert set(capabilities.HOLDERS) == set(capabilities.COVERS)
    for capability, holders in capabilities.HOLDERS.items():
        assert holders and holders <= set(capabilities.ROLES), capability


def test_an_admin_may_do_everything():
    assert all(may(ADMIN, capability) for capability in capabilities.HOLDERS)


@pytest.mark.parametrize("capability", [READ, EDIT_MARKETING, CONFIGURE_APPS])
def test_a_member_reads_and_builds(capability):
    assert may(MEMBER, capability)


@pytest.mark.parametrize("capability", [CONFIGURE, ADMINISTER, EDIT_RATES])
def test_a_member_may_not_hand_data_away_name_people_or_change_rates(capability):
    assert not may(MEMBER, capability)


@pytest.mark.parametrize("role", [None, "", "owner"])
def test_no_role_or_an_unknown_one_holds_nothing(role):
    assert not any(may(role, capability) for capability in capabilities.HOLDERS)


def test_an_unknown_capability_is_a_bug_not_a_refusal():
    with pytest.raises(KeyError):
        may(ADMIN, "launch")


def test_a_refusal_names_who_may_and_what():
    assert capabilities.refusal(CONFIGURE) == (
        "Only an organization's admins may set up integrations, data destinations and fraud "
        "settings.")
    assert capabilities.refusal(READ).startswith("Only an organization's admins and members")


def test_a_view_declares_one_capability_or_one_per_method():
    assert capabilities.needed(CONFIGURE, "GET") == CONFIGURE
    per_method = {"GET": READ, "PUT": CONFIGURE}
    assert capabilities.needed(per_method, "PUT") == CONFIGURE
    assert capabilities.needed(per_method, "HEAD") == READ
    assert capabilities.needed(per_method, "POST") is None
    assert capabilities.needed(None, "DELETE") is None


def test_what_every_role_holds_needs_no_refusal():
    assert capabilities.held_by_all(READ)
    assert not capabilities.held_by_all(CONFIGURE)
