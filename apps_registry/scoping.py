"""Organization scoping that a view cannot forget (spec: Authentication, rule 6).

Every dashboard view derives from `OrganizationScopedView`: the caller's organization comes
from the JWT user, and apps are looked up only through `get_app`, which answers 404 for an app
that does not exist or belongs to someone else.
"""

from __future__ import annotations

import uuid

from rest_framework.views import APIView

from apps_registry import selectors as app_selectors
from apps_registry.models import App
from attribution_site.api.exceptions import Forbidden, NotFound, ValidationFailed

APP_NOT_FOUND = "App not found."


# No class docstring: drf-spectacular would make it every dashboard operation's description.
class OrganizationScopedView(APIView):
    @property
    def organization_id(self) -> uuid.UUID:
        organization_id = getattr(self.request.user, "organization_id", None)
        if organization_id is None:
            raise Forbidden("This account does not belong to an organization.")
        return organization_id

    def get_app(self, app_id) -> App:
        app = app_selectors.app_for_organization(organization_id=self.organization_id,
                                                 app_id=app_id)
        if app is None:
            raise NotFound(APP_NOT_FOUND)
        return app

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
