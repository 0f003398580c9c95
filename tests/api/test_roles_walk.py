"""Every route under /api/v1/ and every console page, walked by a person of each role
(docs/teams.md, "Roles"): where the role lacks the capability the view declares for the method,
a 403 (the envelope's FORBIDDEN on /api/, the not-allowed page in the console); where it holds
it, anything but a 403; never a 5xx, and never a trace of another organization's data, whether
the path names our objects or theirs.

The walk reads the URLconf and each view's declaration, so a route added tomorrow is walked
and checked without touching this file; `test_every_view_a_person_reaches_declares...` makes
sure a new view cannot leave the rule out, and `test_the_declarations_follow_the_issues_table`
pins the declarations to the issue's table for a route of each of its rows.
"""

from __future__ import annotations

from http.cookies import SimpleCookie

import pytest
from django.contrib.auth.mixins import LoginRequiredMixin
from django.test import Client
from django.urls import resolve
from rest_framework.permissions import AllowAny

from accounts.services import access_token_issue
from apps_registry.authentication import ApiKeyAuthentication
from attribution_site import capabilities
from attribution_site.api.permissions import CapabilityRequired, capability_of
from console.pages import CapabilityRequiredPage
from tests.api import world as worlds
from tests.api.helpers import (
    answer,
    console_delivery_paths,
    filled,
    resolvable_path,
    url_patterns,
)
from tests.factories import AppFactory, UserFactory
from tests.helpers import client_for

pytestmark = pytest.mark.django_db

HANDLERS = ("GET", "POST", "PUT", "PATCH", "DELETE")
WALKED = ("api/v1/", "console/")
OUTSIDER_APP_NAME = "Outsider's own app"
OUTSIDER_CODE = "outsider-code"


# --- What a route's view declares ----------------------------------------------------------

def view_class(path: str):
    callback = resolve(path).func
    return getattr(callback, "cls", None) or getattr(callback, "view_class", None)


def implemented(view) -> list[str]:
    """The methods the view itself answers for a person (an SDK's POST on the same URL is the
    app key's, apps_registry/sdk.py's WithSdkPost)."""
    methods = [m for m in HANDLERS if hasattr(view, m.lower())]
    if getattr(view, "sdk_view", None) is not None:
        methods.remove("POST")
    return methods


def for_people(view) -> bool:
    """Whether a person (a JWT, a console session) is who the view answers: what the rule
    covers. An API key's views, the web script's (a web key, checked in the view) and the public
    ones (sign-up, login) are not."""
    if hasattr(view, "authentication_classes"):  # DRF
        if any(issubclass(p, AllowAny) for p in view.permission_classes):
            return False
        return bool(view.authentication_classes) and not any(
            issubclass(a, ApiKeyAuthentication) for a in view.authentication_classes)
    return issubclass(view, LoginRequiredMixin)


def needed(view, method: str) -> str | None:
    if hasattr(view, "authentication_classes"):
        return capability_of(view, method)
    return capabilities.needed(getattr(view, "capability", None), method)


def walked_paths(world) -> list[str]:
    paths = set()
    for route, name in url_patterns():
        if not route.startswith(WALKED):
            continue
        if "<delivery_kind:kind>" in route:
            paths |= console_delivery_paths(route, world, missing=False)
        else:
            paths.add(resolvable_path(route, name, world))
    return sorted(paths)


def test_every_view_a_person_reaches_declares_a_capability_for_each_method(world):
    undeclared = []
    for path in walked_paths(world):
        view = view_class(path)
        if view is None or not for_people(view):
            continue
        if hasattr(view, "authentication_classes"):
            if CapabilityRequired not in view.permission_classes:
                undeclared.append(f"{path}: CapabilityRequired is not in its permissions")
        elif not issubclass(view, CapabilityRequiredPage):
            undeclared.append(f"{path}: not a ConsolePage (console/pages.py)")
        undeclared += [f"{method} {path} ({view.__name__})" for method in implemented(view)
                       if needed(view, method) is None]
    assert not undeclared, "\n".join(undeclared)


def test_an_api_keys_views_declare_nothing(world):
    """Roles are for people: a key's views keep working as they did."""
    declared = [path for path in walked_paths(world)
                if (view := view_class(path)) is not None
                and hasattr(view, "authentication_classes")
                and any(issubclass(a, ApiKeyAuthentication) for a in view.authentication_classes)
                and getattr(view, "capability", None) is not None]
    assert not declared


# --- The walk --------------------------------------------------------------------------------

@pytest.fixture
def world(settings):
    settings.DASHBOARD_RATE_LIMIT = "1000000/m"
    settings.DEBUG = False
    return worlds.build()


@pytest.fixture
def outsider():
    """Another organization with an app, a link and a postback: none may show in our walk."""
    person = UserFactory(email="outsider@example.com")
    app = AppFactory(organization=person.organization, name=OUTSIDER_APP_NAME)
    api = client_for(person)
    link = api.post("/api/v1/links", {"app_id": str(app.id), "media_source": "network_z",
                                      "code": OUTSIDER_CODE}, format="json")
    postback = api.post("/api/v1/postbacks", {
        "app_id": str(app.id), "media_source": "network_z",
        "postback_url": "https://outsider.invalid/p?i={install_id}"}, format="json")
    assert link.status_code == postback.status_code == 201
    link_id = link.json()["data"]["link"]["id"]
    postback_id = postback.json()["data"]["postback"]["id"]
    return {"ids": {"app_id": str(app.id), "link_id": link_id, "postback_id": postback_id,
                    "config_id": postback_id, "kind": "postback", "member_id": str(person.id)},
            "traces": [str(app.id), OUTSIDER_APP_NAME, OUTSIDER_CODE, link_id, postback_id,
                       person.email]}


def people(world) -> dict[str, tuple[Client, Client]]:
    """For each role, a person of the world's organization: (their API client, their console
    client)."""
    clients = {}
    for role in capabilities.ROLES:
        person = UserFactory(email=f"{role}@example.com", role=role,
                             organization=world.owner.organization)
        api = Client(raise_request_exception=False,
                     HTTP_AUTHORIZATION=f"Bearer {access_token_issue(user=person)}")
        console = Client(raise_request_exception=False)
        console.force_login(person, backend="django.contrib.auth.backends.ModelBackend")
        clients[role] = (api, console)
    return clients


def body_of(response) -> str:
    raw = (b"".join(response.streaming_content) if response.streaming
           else response.content)
    return raw.decode(errors="replace")


def refused_as_the_rule_says(response, path: str) -> bool:
    if response.status_code != 403:
        return False
    if path.startswith("/api/"):
        return response.json()["error"]["code"] == "FORBIDDEN"
    return "Not allowed" in response.content.decode()


def walk(clients, paths, *, traces) -> list[str]:
    problems = []
    admin_status: dict[tuple[str, str], int] = {}
    for role in capabilities.ROLES:  # the admin first: what exists for anyone
        api, console = clients[role]
        for path in paths:
            view = view_class(path)
            # The public and key-authenticated views are test_every_route.py's (and the
            # console's logout would end the session the rest of the walk uses).
            if view is None or not for_people(view):
                continue
            client = api if path.startswith("/api/") else console
            cookies = SimpleCookie(client.cookies)
            for method in implemented(view):
                response = answer(client, cookies, method, path)
                status = response.status_code
                admin_status.setdefault((method, path), status)
                where = f"{method} {path} as {role}: {status}"
                body = body_of(response)
                if status >= 500:
                    problems.append(f"{where} {body[:200]!r}")
                problems += [f"{where} shows {trace!r}" for trace in traces if trace in body]
                capability = needed(view, method)
                if capabilities.may(role, capability):
                    if status == 403:
                        problems.append(f"{where}, though it holds {capability}: {body[:200]}")
                elif not refused_as_the_rule_says(response, path) and not (
                        status == 404 and admin_status[(method, path)] == 404):
                    problems.append(f"{where}, though it lacks {capability}")
    return problems


def test_each_role_is_allowed_or_refused_as_each_route_declares(world, outsider):
    paths = walked_paths(world)
    assert len(paths) > 100  # the walk reached the API and the console
    problems = walk(people(world), paths, traces=outsider["traces"])
    assert not problems, "\n".join(problems)


def test_no_role_reaches_another_organizations_objects(world, outsider):
    """The paths name the outsider's app, link, postback and person: each is refused (a 403,
    a 404, or a 400 for a query the route needs first), and nothing of theirs is in the answer."""
    clients = people(world)
    paths = sorted({path for route, _ in url_patterns() if route.startswith(WALKED)
                    if (path := filled(route, outsider["ids"])) is not None
                    and for_people(view_class(path))})
    assert len(paths) > 30
    problems = []
    for role in capabilities.ROLES:
        api, console = clients[role]
        for path in paths:
            client = api if path.startswith("/api/") else console
            cookies = SimpleCookie(client.cookies)
            response = answer(client, cookies, "GET", path)
            body = body_of(response)
            if not 400 <= response.status_code < 500:
                problems.append(f"GET {path} as {role}: {response.status_code}")
            problems += [f"GET {path} as {role} shows {trace!r}"
                         for trace in outsider["traces"] if trace in body]
    assert not problems, "\n".join(problems)


# --- The issue's table, a route of each row ------------------------------------------------

TABLE_ROUTES = [
    # (method, path template, capability the issue's table gives it)
    ("GET", "/api/v1/apps", capabilities.READ),
    ("GET", "/api/v1/analytics/dashboard", capabilities.READ),
    ("GET", "/api/v1/analytics/export", capabilities.READ),
    ("GET", "/api/v1/installs", capabilities.READ),
    ("GET", "/api/v1/links", capabilities.READ),
    ("GET", "/api/v1/postbacks/logs", capabilities.READ),
    ("POST", "/api/v1/links", capabilities.EDIT_MARKETING),
    ("POST", "/api/v1/costs", capabilities.EDIT_MARKETING),
    ("POST", "/api/v1/apps", capabilities.CONFIGURE),
    ("GET", "/api/v1/apps/{app}/keys", capabilities.CONFIGURE),
    ("GET", "/api/v1/postbacks", capabilities.CONFIGURE),
    ("GET", "/api/v1/webhooks", capabilities.CONFIGURE),
    ("GET", "/api/v1/apps/{app}/integrations", capabilities.CONFIGURE),
    ("GET", "/api/v1/data-destinations", capabilities.CONFIGURE),
    ("GET", "/api/v1/apps/{app}/fraud-settings", capabilities.CONFIGURE),
    ("GET", "/api/v1/org/members", capabilities.ADMINISTER),
    ("GET", "/api/v1/privacy/requests", capabilities.ADMINISTER),
    ("GET", "/console/apps/{app}/", capabilities.READ),
    ("POST", "/console/apps/{app}/links/new", capabilities.EDIT_MARKETING),
    ("POST", "/console/apps/{app}/costs", capabilities.EDIT_MARKETING),
    ("POST", "/console/apps/{app}/rates/edit", capabilities.EDIT_RATES),
    ("GET", "/console/apps/{app}/keys", capabilities.CONFIGURE),
    ("GET", "/console/members", capabilities.ADMINISTER),
]


@pytest.mark.parametrize(("method", "path", "capability"), TABLE_ROUTES)
def test_the_declarations_follow_the_issues_table(method, path, capability):
    path = path.format(app="00000000-0000-0000-0000-000000000001")
    assert needed(view_class(path), method) == capability
