"""Who may do what in an organization: the one permission rule of the API and the console
(docs/decisions.md, "One permission rule"). Pure: standard library only.

A view names the capability an action needs (`capability` on an API view or console page, per
method where reading and changing differ); this table says which roles hold it. Roles are the
values of `accounts.models.User.Role`, spelled out here so the rule stays pure.
"""

from __future__ import annotations

ADMIN, DEVELOPER, MARKETER, VIEWER = "admin", "developer", "marketer", "viewer"
ROLES = (ADMIN, DEVELOPER, MARKETER, VIEWER)

READ = "read"  # apps (no secrets), analytics, installs, events, links, reports, delivery logs, CSV
EDIT_MARKETING = "edit_marketing"  # links, cost uploads
EDIT_RATES = "edit_rates"  # the instance-wide exchange rates, when CURRENCY_RATES_EDITORS=admins
CONFIGURE = "configure"  # apps, keys, postbacks, webhooks, integrations, destinations, fraud
ADMINISTER = "administer"  # members, roles, invitations, SSO, privacy requests, audit log

# The table (docs/teams.md, "Roles"): each row a capability, each column a role.
HOLDERS: dict[str, frozenset[str]] = {
    READ: frozenset({ADMIN, DEVELOPER, MARKETER, VIEWER}),
    EDIT_MARKETING: frozenset({ADMIN, DEVELOPER, MARKETER}),
    EDIT_RATES: frozenset({ADMIN, DEVELOPER, MARKETER}),
    CONFIGURE: frozenset({ADMIN, DEVELOPER}),
    ADMINISTER: frozenset({ADMIN}),
}

# What each capability covers, as a refusal says it ("Only an organization's admins may ...").
COVERS = {
    READ: "read the organization's apps and reports",
    EDIT_MARKETING: "change links and costs",
    EDIT_RATES: "change the exchange rates",
    CONFIGURE: "change apps, keys, postbacks, webhooks, integrations, data destinations and "
               "fraud settings",
    ADMINISTER: "handle members, invitations, single sign-on, data-subject requests and the "
                "audit log",
}


def may(role: str | None, capability: str) -> bool:
    """Whether a person of `role` holds `capability`. No role (an operator without an
    organization, an API key) holds none; an unknown capability is a bug, not a refusal."""
    return role in HOLDERS[capability]


def held_by_all(capability: str) -> bool:
    """Every role holds it: no refusal to document or to show."""
    return HOLDERS[capability] == frozenset(ROLES)


def refusal(capability: str) -> str:
    """The message of a 403 (API) or a not-allowed page (console) for a missing capability."""
    holders = [f"{role}s" for role in ROLES if role in HOLDERS[capability]]
    holders = ", ".join(holders[:-1]) + " and " + holders[-1] if len(holders) > 1 else holders[0]
    return f"Only an organization's {holders} may {COVERS[capability]}."


def needed(declared: str | dict[str, str] | None, method: str) -> str | None:
    """The capability a view's `capability` declares for an HTTP method: one for every method,
    or one per method (HEAD as GET); None when the method needs none (the SDK's paths, which
    authenticate an app's key, not a person)."""
    if declared is None or isinstance(declared, str):
        return declared
    return declared.get("GET" if method == "HEAD" else method)
