"""An app's API keys: the active ones (name, prefix, permissions, rate limit, creation, last
use; never a secret), create, and revoke after a confirmation. Checked by the keys API's
`ApiKeyCreateInput`, written by `api_key_create` and `api_key_revoke`, looked up by the
selectors the API uses, so a key of another organization or another app is a 404.

The full key is shown once, on the page the creating POST redirects to (console/shown_once.py),
with its signing secret when the key signs its requests (docs/fraud.md, "Request signing"), or,
for a web key, the script tag to paste into the site's pages (docs/web.md, "The snippet").
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone

from apps_registry import selectors, services
from apps_registry.models import ApiKey
from apps_registry.serializers import PERMISSIONS, ApiKeyCreateInput
from attribution_site.api.exceptions import ApiError
from attribution_site.capabilities import CONFIGURE
from console import shown_once
from console.forms import BOOLEAN, INTEGER, LIST, TEXT, FormProblem, form_data, validated
from console.pages import AppPage
from links.serializers import own_origin
from web.snippet import QUEUE_LINE, web_snippet

CREATE_FIELDS = {"name": TEXT, "permissions": LIST, "rate_limit": INTEGER, "expires_at": TEXT,
                 "signing": BOOLEAN, "kind": TEXT}


class KeyListPage(AppPage):
    capability = CONFIGURE
    section = "keys"

    def get(self, request, app_id):
        keys = selectors.api_keys_for_app(app_id=self.app.id)
        return render(request, "console/keys/list.html",
                      self.context(keys=keys, now=timezone.now()))


class KeyCreatePage(AppPage):
    capability = CONFIGURE
    section = "keys"
    template = "console/keys/new.html"

    def get(self, request, app_id):
        kind = "web" if self.app.platform == "web" else "server"
        return self.form(request, values={"permissions": ["write"], "kind": kind})

    def post(self, request, app_id):
        data = form_data(request.POST, CREATE_FIELDS)
        if data.get("kind") == "web":
            # A web key's permissions are fixed and it cannot sign: the boxes do not apply.
            data.pop("permissions", None)
            data.pop("signing", None)
            data["allowed_origins"] = [line.strip() for line in request.POST.get(
                "allowed_origins", "").splitlines() if line.strip()]
        else:
            # Every box unticked means no permission, not the API's default.
            data.setdefault("permissions", [])
        try:
            fields = validated(ApiKeyCreateInput, data)
            secret = None
            if fields.pop("signing", False):
                key, full_key, secret = services.api_key_create_signing(app=self.app, **fields)
            else:
                key, full_key = services.api_key_create(app=self.app, **fields)
        except ApiError as error:
            return self.form(request, values=data, problem=FormProblem(error),
                             status=error.status)
        shown_once.keep(request, slot=f"key:{key.id}", secret=full_key)
        if secret is not None:
            shown_once.keep(request, slot=f"key-signing:{key.id}", secret=secret)
        return redirect("console:key-created", app_id=self.app.id, key_id=key.id)

    def form(self, request, *, values, problem=None, status=200):
        origins = values.get("allowed_origins")
        if isinstance(origins, list):
            values = {**values, "allowed_origins": "\n".join(map(str, origins))}
        return render(request, self.template, self.context(
            values=values, problem=problem, permissions=PERMISSIONS), status=status)


class KeyPage(AppPage):
    """A page about one key of the app: another organization's or app's key is a 404."""

    capability = CONFIGURE

    section = "keys"

    def get_key(self, key_id: str) -> ApiKey:
        key = selectors.api_key_for_organization(organization_id=self.organization_id,
                                                 key_id=key_id)
        if key is None or key.app_id != self.app.id:
            raise Http404("API key not found.")
        return key


class KeyCreatedPage(KeyPage):
    def get(self, request, app_id, key_id):
        key = self.get_key(key_id)
        full_key = shown_once.take(request, slot=f"key:{key.id}")
        signing_secret = shown_once.take(request, slot=f"key-signing:{key.id}")
        snippet = web_snippet(service_origin=own_origin(request), web_key=full_key) \
            if key.kind == "web" and full_key else None
        return shown_once.no_store(render(request, "console/keys/created.html", self.context(
            key=key, full_key=full_key, signing_secret=signing_secret, snippet=snippet,
            queue_line=QUEUE_LINE)))


class KeyRevokePage(KeyPage):
    def get(self, request, app_id, key_id):
        return render(request, "console/keys/revoke.html", self.context(key=self.get_key(key_id)))

    def post(self, request, app_id, key_id):
        key = self.get_key(key_id)
        services.api_key_revoke(key=key)
        messages.success(request, f"Revoked the key {key.key_prefix}; SDKs using it are refused.")
        return redirect("console:keys", app_id=self.app.id)
