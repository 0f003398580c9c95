"""Every URL pattern of the project, with every method and every kind of caller, answers without a
5xx; on /api/ a method the route does not take is a 405 in the envelope with an `Allow` header
(docs/decisions.md, "Unsupported methods are refused where views are dispatched").

The walk reads the URLconf itself, so a route added tomorrow is walked without touching this
file. Path arguments are filled twice: with the ids of one organization's real objects
(tests/api/world.py) and with ids that exist nowhere. Each request runs in a savepoint that is
rolled back, so a DELETE early in the walk leaves the objects for the requests after it.
"""

from __future__ import annotations

from http.cookies import SimpleCookie

import pytest

from tests.api import world as worlds
from tests.api.helpers import CALLERS, METHODS, answer, caller, every_path

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(settings):
    settings.DASHBOARD_RATE_LIMIT = "1000000/m"
    settings.DEBUG = False
    return worlds.build()


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
