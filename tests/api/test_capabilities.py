"""The one permission rule (attribution_site/capabilities.py), read as the issue's table: no
HTTP, no database. tests/api/test_roles_walk.py walks every route with each role."""

import pytest

from accounts.members import keeps_an_admin
from accounts.models import User
from attribution_site import capabilities
from attribution_site.capabilities import (
    ADMIN,
    ADMINISTER,
    CONFIGURE,
    DEVELOPER,
    EDIT_MARKETING,
    EDIT_RATES,
    MARKETER,
    READ,
    VIEWER,
    may,
)

# The issue's table: each role, the capabilities it holds.
TABLE = {
    ADMIN: {READ, EDIT_MARKETING, EDIT_RATES, CONFIGURE, ADMINISTER},
    DEVELOPER: {READ, EDIT_MARKETING, EDIT_RATES, CONFIGURE},
    MARKETER: {READ, EDIT_MARKETING, EDIT_RATES},
    VIEWER: {READ},
}


def test_the_table_knows_every_role_the_accounts_store():
    assert set(capabilities.ROLES) == set(User.Role.values)


def test_every_capability_is_held_and_described():
    assert set(capabilities.HOLDERS) == set(capabilities.COVERS)
    for capability, holders in capabilities.HOLDERS.items():
        assert holders and holders <= set(capabilities.ROLES), capability


@pytest.mark.parametrize("role", capabilities.ROLES)
def test_each_role_holds_what_the_issue_says_and_nothing_more(role):
    assert {c for c in capabilities.HOLDERS if may(role, c)} == TABLE[role]


@pytest.mark.parametrize("role", [None, "", "owner", "member"])
def test_no_role_or_an_unknown_one_holds_nothing(role):
    assert not any(may(role, capability) for capability in capabilities.HOLDERS)


def test_an_unknown_capability_is_a_bug_not_a_refusal():
    with pytest.raises(KeyError):
        may(ADMIN, "launch")


def test_a_refusal_names_who_may_and_what():
    assert capabilities.refusal(ADMINISTER).startswith(
        "Only an organization's admins may handle members")
    assert capabilities.refusal(CONFIGURE).startswith(
        "Only an organization's admins and developers may change apps, keys")
    assert capabilities.refusal(EDIT_MARKETING) == (
        "Only an organization's admins, developers and marketers may change links and costs.")


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


@pytest.mark.parametrize(("admins", "role", "becomes", "kept"), [
    (1, ADMIN, DEVELOPER, False),
    (1, ADMIN, None, False),
    (1, ADMIN, ADMIN, True),
    (2, ADMIN, VIEWER, True),
    (2, ADMIN, None, True),
    (1, VIEWER, None, True),
    (1, MARKETER, ADMIN, True),
])
def test_the_last_admin_is_kept(admins, role, becomes, kept):
    assert keeps_an_admin(admins=admins, role=role, becomes=becomes) is kept
