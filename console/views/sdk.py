"""The SDK set-up page: what an app's developers need to call this service, with the app's
real values. The app id, this service's address (its public origin, built as short links'
are: `LINKS_BASE_URL` behind a TLS proxy, else the request's), the app's active keys (prefix
and permissions only, never a secret, with the ones the SDK can use marked by the SDK
endpoints' own rule, `apps_registry.keys.sdk_refusal`: an app that requires signed requests
refuses a key that cannot sign), and the calls in order for Android, iOS and any HTTP client,
written by `console.sdk_snippets`, signing each request when the key to use signs
(docs/console.md, "SDK set-up")."""

from __future__ import annotations

from django.shortcuts import render
from django.utils import timezone

from apps_registry import keys, selectors
from attribution_site.capabilities import CONFIGURE
from console import sdk_snippets
from console.pages import AppPage
from fraud import selectors as fraud_selectors
from fraud import verdict
from links.serializers import own_origin


class SdkSetupPage(AppPage):
    capability = CONFIGURE  # it shows the app's keys
    section = "sdk"

    def get(self, request, app_id):
        now = timezone.now()
        app_keys = list(selectors.api_keys_for_app(app_id=self.app.id))
        signing = fraud_selectors.keys_that_sign([key.id for key in app_keys])
        required = (fraud_selectors.settings_of(self.app.id).signing_mode
                    == verdict.SIGNING_ENFORCE)
        rows = [(key, key.id in signing, keys.sdk_refusal(
                    permissions=key.permissions, expires_at=key.expires_at, now=now,
                    signs=key.id in signing, signatures_required=required))
                for key in app_keys]
        sdk_key = next((key for key, _, refusal in rows if refusal is None), None)
        # The snippets sign when the key to use does; with no key to use yet, when the app
        # requires it (the key to create must sign).
        signs = sdk_key.id in signing if sdk_key is not None else required
        target = sdk_snippets.SdkTarget(
            app_id=str(self.app.id), base_url=own_origin(request),
            platform=self.app.platform, bundle_id=self.app.bundle_id,
            package_name=self.app.package_name, url_scheme=self.app.url_scheme,
            now_ms=int(now.timestamp() * 1000), signing=signs)
        return render(request, "console/sdk/setup.html", self.context(
            keys=rows, sdk_key=sdk_key, signs=signs, signatures_required=required,
            base_url=target.base_url.rstrip("/"), guides=sdk_snippets.guides(target),
            placeholder=sdk_snippets.API_KEY_PLACEHOLDER,
            secret_placeholder=sdk_snippets.SIGNING_SECRET_PLACEHOLDER,
            any_language=sdk_snippets.any_language_note(target),
            sdk_permissions=keys.SDK_PERMISSIONS))
