"""Every URL pattern of the project, with every method and every kind of caller, answers without a
5xx; on /api/ a method the route does not take is a 405 in the envelope with an `Allow` header
(docs/decisions.md, "Unsupported methods are refused where views are dispatched").

The walk reads the URLconf itself, so a route added tomorrow is walked without touching this
file. Path arguments are filled twice: with the ids of one organization's real objects
(tests/api/world.py) and with ids that exist nowhere. Each request runs in a savepoint that is
rolled back, so a DELETE early in the walk leaves the objects for the requests after it.
"""

from __future__ import annotations

import re
import uuid
from http.cookies import SimpleCookie

import pytest
from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from attribution_site import local_cache
from tests.api import world as worlds

pytestmark = pytest.mark.django_db

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
CALLERS = ("nobody", "owner_jwt", "api_key", "owner_session")
ARGUMENT = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>")
REGEX_GROUP = re.compile(r"\(\?P<(?P<name>\w+)>[^)]*\)")
MISSING = {"uuid": str(uuid.UUID(int=1)), "int": "987654", "path": "missing/deeper",
           "delivery_kind": "postback"}


def url_patterns(resolver=None, prefix="", name_prefix=""):
    """(route, URL name) of every pattern, the includes' prefixes joined in."""
    resolver = resolver or get_resolver()
    for pattern in resolver.url_patterns:
        route = str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            namespace = f"{pattern.namespace}:" if pattern.namespace else ""
            yield from url_patterns(pattern, prefix + route, name_prefix + namespace)
        elif isinstance(pattern, URLPattern):
            yield prefix + route, f"{name_prefix}{pattern.name or ''}"


def fillings(route: str, name: str, world) -> set[str]:
    """The route's paths: its arguments as real ids, and (when it has any) as missing ones."""
    real = _arguments(name, world)
    paths = {_fill(route, lambda converter, argument: real.get(argument, "missing"))}
    if ARGUMENT.search(route) or REGEX_GROUP.search(route):
        paths.add(_fill(route, lambda converter, argument: MISSING.get(converter, "missing")))
    return paths


def _fill(route: str, value) -> str:
    route = route.replace("^", "").replace("$", "")
    route = REGEX_GROUP.sub(lambda m: value("regex", m["name"]), route)
    return "/" + ARGUMENT.sub(lambda m: value(m["converter"] or "str", m["name"]), route)


def _arguments(name: str, world) -> dict[str, str]:
    values = {
        "app_id": str(world.app.id), "install_id": world.install_id, "key_id": world.key_id,
        "postback_id": world.postback_id, "webhook_id": world.webhook_id,
        "link_id": world.link_id, "domain_id": world.link_domain_id,
        "version": str(world.schema_version), "network_id": world.network_id,
        "code": world.link_code, "rest": f"{world.link_code}/more", "kind": "installs",
        "app_label": "tracking", "url": "nothing-here",
        "content_type_id": str(ContentType.objects.get_for_model(type(world.app)).id),
        "object_id": str(world.app.id),
    }
    admin_model = re.fullmatch(r"admin:(\w+?)_(\w+)_(change|delete|history)", name)
    if admin_model:
        model = _model(admin_model[1], admin_model[2])
        first = model.objects.order_by("pk").first() if model else None
        values["object_id"] = str(first.pk) if first else "missing"
    return values


def _model(app_label: str, model_name: str):
    try:
        return apps.get_model(app_label, model_name)
    except LookupError:  # an app label with an underscore: split elsewhere
        head, _, tail = model_name.partition("_")
        try:
            return apps.get_model(f"{app_label}_{head}", tail)
        except LookupError:
            return None


def console_delivery_paths(route: str, world) -> set[str]:
    """The console's delivery routes take a kind and that kind's configuration id together."""
    paths = set()
    for kind, config_id in (("postback", world.postback_id), ("webhook", world.webhook_id)):
        paths.add(_fill(route, lambda converter, argument, kind=kind, config_id=config_id: {
            "app_id": str(world.app.id), "kind": kind, "config_id": config_id}[argument]))
    paths.add(_fill(route, lambda converter, argument: MISSING.get(converter, "missing")))
    return paths


def every_path(world) -> list[str]:
    paths: set[str] = set()
    for route, name in url_patterns():
        if "<delivery_kind:kind>" in route:
            paths |= console_delivery_paths(route, world)
        else:
            paths |= fillings(route, name, world)
    return sorted(paths)


@pytest.fixture
def world(settings):
    settings.DASHBOARD_RATE_LIMIT = "1000000/m"
    settings.DEBUG = False
    return worlds.build()


def caller(kind: str, world) -> Client:
    client = Client(raise_request_exception=False)
    if kind == "owner_jwt":
        client.defaults["HTTP_AUTHORIZATION"] = world.owner_api._credentials[
            "HTTP_AUTHORIZATION"]
    elif kind == "api_key":
        client.defaults["HTTP_X_API_KEY"] = world.full_key
    elif kind == "owner_session":
        client.force_login(world.owner, backend="django.contrib.auth.backends.ModelBackend")
    return client


def answer(client: Client, cookies: SimpleCookie, method: str, path: str):
    """One request whose writes are rolled back; the caller's cookies as they were before."""
    client.cookies = SimpleCookie(cookies)
    with transaction.atomic():
        response = client.generic(method, path, data=b"{}" if method in (
            "POST", "PUT", "PATCH") else b"", content_type="application/json")
        transaction.set_rollback(True)
    local_cache.clear_all()  # a rolled-back write must not linger in this process's copies
    return response


def problems_of(response, method: str, path: str) -> list[str]:
    found = []
    if response.status_code >= 500:
        found.append(f"{response.status_code}: {response.content[:200]!r}")
    if path.startswith("/api/") and response.status_code == 405:
        if not response.get("Allow"):
            found.append("405 without an Allow header")
        if method != "HEAD":
            body = response.json() if response["Content-Type"].startswith(
                "application/json") else {}
            if body.get("error", {}).get("code") != "METHOD_NOT_ALLOWED":
                found.append(f"405 outside the envelope: {response.content[:200]!r}")
    return found


def methods_for(kind: str, path: str) -> tuple[str, ...]:
    # Signed in, the admin's pages do real work (about 0.1 s each); its views answer every
    # method but POST as a GET, and class-based ones (login) a PUT as a POST.
    if kind == "owner_session" and path.startswith("/admin/"):
        return ("GET", "POST", "PUT")
    return METHODS


@pytest.mark.parametrize("kind", CALLERS)
def test_every_route_answers_every_method_without_a_server_error(world, kind):
    client = caller(kind, world)
    cookies = SimpleCookie(client.cookies)
    paths = every_path(world)
    assert len(paths) > 150  # the walk reached the includes (admin, console, api)
    if kind == "owner_session":  # the API reads no session: there it is "nobody" again
        paths = [path for path in paths if not path.startswith("/api/")]
    problems = []
    for path in paths:
        for method in methods_for(kind, path):
            response = answer(client, cookies, method, path)
            problems += [f"{method} {path} as {kind}: {p}"
                         for p in problems_of(response, method, path)]
    assert not problems, "\n".join(problems)


def test_an_sdk_route_without_a_post_refuses_one_with_405_and_allow(world):
    response = world.sdk_api.post(f"/api/v1/apps/{world.app.id}/conversion-schema", {},
                                  format="json")
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD, OPTIONS"
    assert response.json() == {"success": False, "error": {
        "code": "METHOD_NOT_ALLOWED", "message": 'Method "POST" not allowed.', "details": {}}}
