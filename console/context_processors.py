"""What every console template may ask of the permission rule: `may.<capability>` for the
person viewing it, so the navigation offers only the pages their role opens (the pages
themselves still refuse, console/pages.py)."""

from __future__ import annotations

from attribution_site import capabilities


def permissions(request) -> dict:
    role = getattr(getattr(request, "user", None), "role", None)
    return {"may": {capability: capabilities.may(role, capability)
                    for capability in capabilities.HOLDERS}}
