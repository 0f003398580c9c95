"""The SDK hot paths go straight to their views, ahead of most of the middleware stack.

`GET /clicks`, `POST /installs` and `POST /events` take ad and SDK traffic at thousands of
requests a second. Sessions, CSRF, authentication, messages, WhiteNoise, CommonMiddleware and
URL resolution do nothing for them (no cookies, an API key or no credentials at all, no static
files, no slash redirects) yet cost about 0.4 ms of Python per request, a quarter of a click.
This middleware sits after the envelope and security middleware, so error envelopes and
security headers stay, and hands those (path, method) pairs to the very views the URLconf
names; every other request goes on down the stack unchanged. See docs/decisions.md.

Prefix routes (`HOT_PATH_PREFIXES`, e.g. a link's `/l/{code}`) are URLs with one path argument
after a fixed prefix; they are tried only when the exact routes miss, so the exact routes cost
the same one dictionary lookup as before, and a path whose argument would hold a slash is left
to the URLconf.
"""

from __future__ import annotations

from django.conf import settings
from django.urls import resolve, reverse


class HotPathMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self._routes = None  # on the first request: URLs cannot be resolved while Django starts
        self._prefixes: tuple = ()

    def __call__(self, request):
        if self._routes is None:
            self._prefixes = _prefix_routes()
            self._routes = _routes()
        path = request.path  # reverse() adds SCRIPT_NAME
        route = self._routes.get((path, request.method))
        kwargs = {}
        if route is None:
            for prefix, methods, view, argument, check_host in self._prefixes:
                if path.startswith(prefix) and request.method in methods:
                    value = path[len(prefix):]
                    if value and "/" not in value:
                        route, kwargs = (view, check_host), {argument: value}
                    break
            if route is None:
                return self.get_response(request)
        view, check_host = route
        if check_host:
            request.get_host()  # ALLOWED_HOSTS, as CommonMiddleware would check it
        return view(request, **kwargs)


def _routes() -> dict[tuple[str, str], tuple]:
    routes = {}
    for name, (methods, check_host) in settings.HOT_PATHS.items():
        path = reverse(name)
        view = resolve(path).func
        for method in methods:
            # A URL whose methods separate views serve names them (apps_registry/sdk.py).
            method_view = getattr(view, "views_by_method", {}).get(method, view)
            routes[(path, method)] = (method_view, check_host)
    return routes


# A placeholder argument to reverse a prefix route with: no URL argument holds it.
_PLACEHOLDER = "hot-path-placeholder"


def _prefix_routes() -> tuple:
    routes = []
    for name, (methods, check_host) in getattr(settings, "HOT_PATH_PREFIXES", {}).items():
        path = reverse(name, args=[_PLACEHOLDER])
        match = resolve(path)
        (argument,) = match.kwargs  # a prefix route has exactly one path argument, at its end
        if not path.endswith(_PLACEHOLDER):
            raise ValueError(f"{name}: the path argument must end the URL")
        routes.append((path.removesuffix(_PLACEHOLDER), frozenset(methods), match.func,
                       argument, check_host))
    return tuple(routes)
