"""Who may do what in an organization: the one permission rule of the API and the console
(docs/decisions.md, "One permission rule"). Pure: standard library only.

A view names the capability an action needs (`capability` on an API view or console page, per
method where reading and changing differ); this table says which roles hold it. Roles are the
values of `accounts.models.User.Role`, spelled out here so the rule stays pure. The teams issue
adds roles (developer, marketer, viewer) as new entries of these sets, not as new checks.
"""

from __future__ import annotations

ADMIN, MEMBER = "admin", "member"
ROLES = (ADMIN, MEMBER)

READ = "read"  # apps, analytics, installs, events, links, reports, delivery logs, exports
EDIT_MARKETING = "edit_marketing"  # links, cost uploads
EDIT_RATES = "edit_rates"  # the instance-wide exchange rates, when CURRENCY_RATES_EDITORS=admins
CONFIGURE_APPS = "configure_apps"  # apps, keys, postbacks, webhooks, conversion schemas, ...
CONFIGURE = "configure"  # integrations, data destinations, fraud settings
ADMINISTER = "administer"  # privacy requests (and, with teams, members and roles)

# Today's line: a member does all but hand an app's data or credentials to another party
# (integrations, data destinations), change how installs are judged (fraud settings), name
# people (privacy requests) or change every organization's figures (rates).
HOLDERS: dict[str, frozenset[str]] = {
    READ: frozenset({ADMIN, MEMBER}),
    EDIT_MARKETING: frozenset({ADMIN, MEMBER}),
    EDIT_RATES: frozenset({ADMIN}),
    CONFIGURE_APPS: frozenset({ADMIN, MEMBER}),
    CONFIGURE: frozenset({ADMIN}),
    ADMINISTER: frozenset({ADMIN}),
}

# What each capability covers, as a refusal says it ("Only an organization's admins may ...").
COVERS = {
    READ: "read the organization's apps and reports",
    EDIT_MARKETING: "change links and costs",
    EDIT_RATES: "change the exchange rates",
    CONFIGURE_APPS: "change apps, keys, postbacks and webhooks",
    CONFIGURE: "set up integrations, data destinations and fraud settings",
    ADMINISTER: "handle members and data-subject requests",
}
_PLURALS = {ADMIN: "admins", MEMBER: "members"}


def may(role: str | None, capability: str) -> bool:
    """Whether a person of `role` holds `capability`. No role (an operator without an
    organization, an API key) holds none; an unknown capability is a bug, not a refusal."""
    return role in HOLDERS[capability]


def held_by_all(capability: str) -> bool:
    """Every role holds it: no refusal to document or to show."""
    return HOLDERS[capability] == frozenset(ROLES)


def refusal(capability: str) -> str:
    """The message of a 403 (API) or a not-allowed page (console) for a missing capability."""
    holders = " and ".join(_PLURALS[role] for role in ROLES if role in HOLDERS[capability])
    return f"Only an organization's {holders} may {COVERS[capability]}."


def needed(declared: str | dict[str, str] | None, method: str) -> str | None:
    """The capability a view's `capability` declares for an HTTP method: one for every method,
    or one per method (HEAD as GET); None when the method needs none (the SDK's paths, which
    authenticate an app's key, not a person)."""
    if declared is None or isinstance(declared, str):
        return declared
    return declared.get("GET" if method == "HEAD" else method)
