"""Organization scoping that a view cannot forget (spec: Authentication, rule 6), for the API
and the console alike.

`OrganizationScope` is the one rule: the caller's organization comes from the logged-in user,
and apps are looked up only through `get_app`, which refuses an app that does not exist or
belongs to someone else. `OrganizationScopedView` is every dashboard API view's base (refusals
in the envelope: 403 without an organization, 404 for another's app; the permission rule of
attribution_site/capabilities.py in its permission classes); the console's pages
(console/pages.py) take the same scope with Django's 404 page.

It is also the API's choke point of the audit log (attribution_site/audit_trail.py): every
unsafe method that succeeded is recorded as a person's change, and every Bearer credential's
address is noted after authentication, so a new view is audited by being one of these.
"""

from __future__ import annotations

import uuid

from rest_framework.exceptions import APIException
from rest_framework.permissions import SAFE_METHODS, IsAuthenticated
from rest_framework.views import APIView

from apps_registry import selectors as app_selectors
from apps_registry.models import App
from attribution_site import audit_trail
from attribution_site.api.exceptions import Forbidden, NotFound, ValidationFailed
from attribution_site.api.permissions import CapabilityRequired

APP_NOT_FOUND = "App not found."
NO_ORGANIZATION = "This account does not belong to an organization."


class OrganizationScope:
    """The caller's organization and its apps; a subclass says how each refusal is answered."""

    def outsider(self, message: str) -> Exception:
        raise NotImplementedError

    def not_found(self, message: str) -> Exception:
        raise NotImplementedError

    @property
    def organization_id(self) -> uuid.UUID:
        organization_id = getattr(self.request.user, "organization_id", None)
        if organization_id is None:
            raise self.outsider(NO_ORGANIZATION)
        return organization_id

    def get_app(self, app_id) -> App:
        app = app_selectors.app_for_organization(organization_id=self.organization_id,
                                                 app_id=app_id)
        if app is None:
            raise self.not_found(APP_NOT_FOUND)
        return app

    def apps(self):
        return app_selectors.apps_for_organization(organization_id=self.organization_id)


# No class docstring: drf-spectacular would make it every dashboard operation's description.
class OrganizationScopedView(OrganizationScope, APIView):
    permission_classes = [IsAuthenticated, CapabilityRequired]
    # What each method needs (attribution_site/capabilities.py): every subclass says it.
    capability: str | dict[str, str] | None = None

    def outsider(self, message: str) -> Exception:
        return Forbidden(message)

    def not_found(self, message: str) -> Exception:
        return NotFound(message)

    def perform_authentication(self, request) -> None:
        super().perform_authentication(request)
        # Before the permission checks: a token used from a further address is worth an entry
        # even when the call is then refused.
        audit_trail.token_seen(request)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        # Only what succeeded changed anything; a refusal or a 400 left everything as it was.
        if request.method not in SAFE_METHODS and 200 <= response.status_code < 300:
            audit_trail.change_made(request, fields=_sent(request), answer=response.data)
        return response

    def get_app_from_query(self, name: str = "app_id") -> App:
        """The app named by a required query parameter: 400 when absent or malformed."""
        raw = self.request.query_params.get(name)
        if not raw:
            raise ValidationFailed(f"Invalid input: {name}.",
                                   {name: ["This parameter is required."]})
        try:
            app_id = uuid.UUID(raw)
        except ValueError:
            raise ValidationFailed(f"Invalid input: {name}.", {name: ["Must be a UUID."]}) from None
        return self.get_app(app_id)


def _sent(request):
    """The body as parsed; nothing when a view that never read it was sent one it cannot
    parse (reading it only now must not turn the view's success into an error)."""
    try:
        return request.data
    except APIException:
        return {}
