"""The route walk's parts (tests/api/test_every_route.py, tests/api/test_roles_walk.py): every
URL pattern of the project read from the URLconf, its path arguments filled with one
organization's real ids (tests/api/world.py) or with ids that exist nowhere, and one request
whose writes are rolled back."""

from __future__ import annotations

import re
import uuid
from http.cookies import SimpleCookie

from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.test import Client
from django.urls import Resolver404, URLPattern, URLResolver, get_resolver, resolve

from attribution_site import local_cache

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
    paths = {real_path(route, name, world)}
    if ARGUMENT.search(route) or REGEX_GROUP.search(route):
        paths.add(_fill(route, lambda converter, argument: MISSING.get(converter, "missing")))
    return paths


def real_path(route: str, name: str, world) -> str:
    """The route with its arguments as the world's real ids ("missing" where it has none)."""
    real = _arguments(name, world)
    return _fill(route, lambda converter, argument: real.get(argument, "missing"))


def resolvable_path(route: str, name: str, world) -> str:
    """The real path, or where the world has no id for an argument (a route added since), the
    path with ids that exist nowhere but that the URL's converters take."""
    path = real_path(route, name, world)
    try:
        resolve(path)
    except Resolver404:
        return _fill(route, lambda converter, argument: MISSING.get(converter, "missing"))
    return path


def filled(route: str, values: dict[str, str]) -> str | None:
    """The route with its arguments from `values`; None when one of them is not there."""
    names = [m["name"] for m in ARGUMENT.finditer(route)]
    names += [m["name"] for m in REGEX_GROUP.finditer(route)]
    if not names or any(name not in values for name in names):
        return None
    return _fill(route, lambda converter, argument: values[argument])


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
        "object_id": str(world.app.id), "member_id": world.member_id,
        "destination_id": world.data_destination_id, "request_id": world.privacy_request_id,
        "token": world.document_token, "invitation_id": world.invitation_id,
        "token_id": world.access_token_id,
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


def console_delivery_paths(route: str, world, *, missing: bool = True) -> set[str]:
    """The console's delivery routes take a kind and that kind's configuration id together."""
    paths = set()
    for kind, config_id in (("postback", world.postback_id), ("webhook", world.webhook_id)):
        paths.add(_fill(route, lambda converter, argument, kind=kind, config_id=config_id: {
            "app_id": str(world.app.id), "kind": kind, "config_id": config_id}[argument]))
    if missing:
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
