"""The API's side of the one permission rule (attribution_site/capabilities.py): a view
declares the capability each method needs (`capability = CONFIGURE`, or a dict per method),
and `CapabilityRequired`, in every organization-scoped view's permission classes, refuses a
caller whose role does not hold it with the spec's 403 before the view runs."""

from __future__ import annotations

from rest_framework.permissions import BasePermission

from attribution_site import capabilities
from attribution_site.api.exceptions import Forbidden


def capability_of(view, method: str) -> str | None:
    """What `view` needs for `method`; None when it declares nothing for it."""
    return capabilities.needed(getattr(view, "capability", None), method)


class CapabilityRequired(BasePermission):
    def has_permission(self, request, view) -> bool:
        capability = capability_of(view, request.method)
        if capability is None:
            return True
        if not capabilities.may(getattr(request.user, "role", None), capability):
            raise Forbidden(capabilities.refusal(capability))
        return True
