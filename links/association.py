"""The association files that let apps open a link domain's links themselves (issue 13:
association files): Apple's `apple-app-site-association` (universal links) and Google's Digital
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
The app fields behind them are checked here too (`team_id_problem`, `fingerprint`), so the API
and the console refuse exactly what the files could not carry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from links.destinations import NEVER_APP_SCHEMES, SCHEME

HANDLE_ALL_URLS = "delegate_permission/common.handle_all_urls"
TEAM_ID = re.compile(r"[A-Z0-9]{10}")
FINGERPRINT = re.compile(r"[0-9A-F]{2}(:[0-9A-F]{2}){31}")
MAX_FINGERPRINTS = 10


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


def team_id_problem(value: str) -> str | None:
    if TEAM_ID.fullmatch(value):
        return None
    return "Must be the 10-character Apple team id (upper-case letters and digits)."


def fingerprint(value: str) -> str | None:
    """A SHA-256 certificate fingerprint as Google writes it (32 upper-case hex pairs joined
    by colons), from that form in any case or from 64 bare hex digits; None otherwise."""
    value = value.strip().upper()
    if re.fullmatch(r"[0-9A-F]{64}", value):
        value = ":".join(value[i:i + 2] for i in range(0, 64, 2))
    return value if FINGERPRINT.fullmatch(value) else None


def url_scheme_problem(value: str) -> str | None:
    """RFC 3986 scheme syntax, and one an app may claim (not a web or browser scheme)."""
    bare = value.removesuffix("://").removesuffix(":")
    if not SCHEME.fullmatch(bare):
        return ("Must be a URL scheme such as myapp: a letter, then letters, digits, "
                "'+', '-' or '.'.")
    if bare.lower() in NEVER_APP_SCHEMES:
        return f"Cannot be {bare.lower()}: use the app's own scheme, such as myapp."
    return None


def normalized_url_scheme(value: str) -> str:
    return value.removesuffix("://").removesuffix(":").lower()
