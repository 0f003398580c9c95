"""The SDK set-up page: what an app's developers need to call this service, with the app's
real values. The app id, this service's address (its public origin, built as short links'
are: `LINKS_BASE_URL` behind a TLS proxy, else the request's), the app's active keys (prefix
and permissions only, never a secret, with the ones the SDK can use marked by the SDK
endpoints' own rule, `apps_registry.keys.usable_by_sdk`), and the calls in order for Android,
iOS and any HTTP client, written by `console.sdk_snippets` (docs/console.md, "SDK set-up")."""

from __future__ import annotations

from django.shortcuts import render
from django.utils import timezone

from apps_registry import keys, selectors
from console import sdk_snippets
from console.pages import AppPage
from links.serializers import own_origin


class SdkSetupPage(AppPage):
    section = "sdk"

    def get(self, request, app_id):
        now = timezone.now()
        app_keys = [(key, keys.usable_by_sdk(permissions=key.permissions,
                                             expires_at=key.expires_at, now=now))
                    for key in selectors.api_keys_for_app(app_id=self.app.id)]
        target = sdk_snippets.SdkTarget(
            app_id=str(self.app.id), base_url=own_origin(request),
            platform=self.app.platform, bundle_id=self.app.bundle_id,
            package_name=self.app.package_name, url_scheme=self.app.url_scheme,
            now_ms=int(now.timestamp() * 1000))
        return render(request, "console/sdk/setup.html", self.context(
            keys=app_keys, sdk_key=next((key for key, usable in app_keys if usable), None),
            base_url=target.base_url.rstrip("/"), guides=sdk_snippets.guides(target),
            placeholder=sdk_snippets.API_KEY_PLACEHOLDER,
            any_language=sdk_snippets.ANY_LANGUAGE_NOTE, sdk_permissions=keys.SDK_PERMISSIONS,
            now=now))
