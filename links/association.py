"""The association files that let apps open a link domain's links themselves (docs/links.md,
"Association files"): Apple's `apple-app-site-association` (universal links) and Google's Digital
Asset Links `assetlinks.json` (Android App Links). Pure: standard library only.

Apple (developer.apple.com, "applinks.Details"): `{"applinks": {"details": [{"appIDs": [...],
"components": [...]}]}}`, each app id `<team id>.<bundle id>`, components matched in order, the
first match deciding (an `exclude` component must come before the one it carves out of). iOS 13
and later read `components`; the older `apps`/`paths` form is not written, since no iOS that
still receives updates needs it.
Google (developers.google.com, "Statement List Syntax"): a JSON list of statements
`{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace":
"android_app", "package_name": ..., "sha256_cert_fingerprints": [upper-case hex pairs]}}`.

The paths claimed are the links' own: `/l/*` on the service's host, every path but
`/.well-known/*` on a link domain (its links live at `/{code}`).
The app fields behind them are checked by `apps_registry.app_fields`, so the API and the console
refuse exactly what the files could not carry.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from apps_registry.app_fields import fingerprint

HANDLE_ALL_URLS = "delegate_permission/common.handle_all_urls"


@dataclass(frozen=True)
class AppIdentity:
    """An app as the association files see it."""

    platform: str
    bundle_id: str | None
    apple_team_id: str | None
    package_name: str | None
    android_sha256_fingerprints: tuple[str, ...]


def link_components(*, custom_domain: bool) -> list[dict]:
    if custom_domain:
        return [{"/": "/.well-known/*", "exclude": True,
                 "comment": "the association files themselves"},
                {"/": "/*", "comment": "every link of this domain"}]
    return [{"/": "/l/*", "comment": "every link of this service's host"}]


def apple_app_site_association(apps: Iterable[AppIdentity], *, custom_domain: bool) -> dict:
    """One `details` entry naming every iOS app with a team id and bundle id (sorted, so the
    file is the same on every request), claiming the links' paths."""
    app_ids = sorted({f"{app.apple_team_id}.{app.bundle_id}" for app in apps
                      if app.platform == "ios" and app.apple_team_id and app.bundle_id})
    details = [{"appIDs": app_ids, "components": link_components(custom_domain=custom_domain)}]
    return {"applinks": {"details": details if app_ids else []}}


def asset_links(apps: Iterable[AppIdentity]) -> list[dict]:
    """One statement per Android app with a package name and at least one fingerprint."""
    statements = []
    for app in sorted(apps, key=lambda a: a.package_name or ""):
        if app.platform != "android" or not app.package_name:
            continue
        fingerprints = [f for f in map(fingerprint, app.android_sha256_fingerprints) if f]
        if fingerprints:
            statements.append({"relation": [HANDLE_ALL_URLS], "target": {
                "namespace": "android_app", "package_name": app.package_name,
                "sha256_cert_fingerprints": list(dict.fromkeys(fingerprints))}})
    return statements
