"""The envelope every JSON body travels in (spec: Endpoints, Errors): `{success: true, data}` or
`{success: false, error: {code, message, details}}`, and the headers an error carries.

Every writer of a body goes through here: DRF's renderer and exception handler, the SDK
endpoints' lean path, the middleware that envelopes Django's own errors, and the health checks.
What an error means (its code, status, message and details) belongs to the error itself
(attribution_site/api/exceptions.py); this module only writes it down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.http import HttpResponse, JsonResponse

if TYPE_CHECKING:
    from attribution_site.api.exceptions import ApiError


def success_body(data: Any) -> dict:
    return {"success": True, "data": data}


def success_response(data: Any, *, status: int = 200) -> JsonResponse:
    return JsonResponse(success_body(data), status=status)


def error_body(error: ApiError) -> dict:
    return {"success": False, "error": {
        "code": error.code.name, "message": error.message, "details": error.details}}


def error_headers(error: ApiError) -> dict[str, str]:
    return {"Retry-After": str(error.retry_after)} if error.retry_after is not None else {}


def error_response(error: ApiError, *, authenticate: str | None = None,
                   replacing: HttpResponse | None = None) -> JsonResponse:
    """`error` as a JSON response. `authenticate` is the scheme a 401 names in WWW-Authenticate;
    a response `replacing` one that was not JSON keeps that one's Allow and Retry-After."""
    response = JsonResponse(error_body(error), status=error.status)
    for name, value in error_headers(error).items():
        response[name] = value
    if authenticate is not None and error.status == 401:
        response["WWW-Authenticate"] = authenticate
    if replacing is not None:
        for name in ("Allow", "Retry-After"):
            if replacing.has_header(name):
                response[name] = replacing[name]
    return response
