"""The console's Content-Security-Policy: scripts, styles, images and requests only from this
service's own origin, so nothing injected into a page (a campaign name, a response body in a
delivery log) could run even if it escaped the templates' autoescaping. No inline scripts or
styles: pages read their data from `json_script` blocks, which are not executed.

Only console pages get it: the API answers JSON, and the Swagger page and the admin are
Django's and drf-spectacular's own (the Swagger UI, served from this service's static files by
drf-spectacular-sidecar, starts with an inline script).
"""

from __future__ import annotations

POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])
CONSOLE_PREFIX = "/console/"


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.path.startswith(CONSOLE_PREFIX) or request.path == "/":
            response.setdefault("Content-Security-Policy", POLICY)
            response.setdefault("Referrer-Policy", "same-origin")
        return response
