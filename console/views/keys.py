"""An app's API keys: the active ones (name, prefix, permissions, rate limit, creation, last
use; never a secret), create, and revoke after a confirmation. Checked by the keys API's
`ApiKeyCreateInput`, written by `api_key_create` and `api_key_revoke`, looked up by the
selectors the API uses, so a key of another organization or another app is a 404.

The full key is shown once: in the response to the POST that created it, marked `no-store`, and
kept nowhere else (not in a URL, the session or a message). A resubmitted form (a reload of
that page, Back then Forward) would create a second key; each form carries a one-use token
instead, and a used token leads back to the list without a key.
"""

from __future__ import annotations

import secrets

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import path
from django.utils import timezone
from django.utils.cache import add_never_cache_headers

from apps_registry import selectors, services
from apps_registry.models import ApiKey
from apps_registry.serializers import PERMISSIONS, ApiKeyCreateInput
from attribution_site.api.exceptions import ApiError
from console.forms import INTEGER, LIST, TEXT, FormProblem, form_data, validated
from console.pages import AppPage

CREATE_FIELDS = {"name": TEXT, "permissions": LIST, "rate_limit": INTEGER, "expires_at": TEXT}
FORM_TOKENS = "console.key_form_tokens"
MAX_OPEN_FORMS = 10  # forms opened in other tabs stay usable, up to this many
SENT_ALREADY = ("That form was sent already; its key was shown once and cannot be shown again. "
                "Create another key if it was not copied.")


class KeyListPage(AppPage):
    section = "keys"

    def get(self, request, app_id):
        keys = selectors.api_keys_for_app(app_id=self.app.id)
        return render(request, "console/keys/list.html",
                      self.context(keys=keys, now=timezone.now()))


class KeyCreatePage(AppPage):
    section = "keys"
    template = "console/keys/new.html"

    def get(self, request, app_id):
        return self.form(request, values={"permissions": ["write"]}, token=self.open_form())

    def post(self, request, app_id):
        token = request.POST.get("form_token", "")
        if token not in request.session.get(FORM_TOKENS, []):
            messages.warning(request, SENT_ALREADY)
            return redirect("console:keys", app_id=self.app.id)
        data = form_data(request.POST, CREATE_FIELDS)
        # Every box unticked means no permission, not the API's default: the serializer says so.
        data.setdefault("permissions", [])
        try:
            key, full_key = services.api_key_create(app=self.app,
                                                    **validated(ApiKeyCreateInput, data))
        except ApiError as error:
            return self.form(request, values=data, token=token, problem=FormProblem(error),
                             status=error.status)
        self.close_form(token)
        response = render(request, "console/keys/created.html",
                          self.context(key=key, full_key=full_key), status=201)
        add_never_cache_headers(response)
        return response

    def form(self, request, *, values, token, problem=None, status=200):
        return render(request, self.template, self.context(
            values=values, token=token, problem=problem, permissions=PERMISSIONS),
            status=status)

    def open_form(self) -> str:
        token = secrets.token_urlsafe(16)
        tokens = [*self.request.session.get(FORM_TOKENS, []), token]
        self.request.session[FORM_TOKENS] = tokens[-MAX_OPEN_FORMS:]
        return token

    def close_form(self, token: str) -> None:
        self.request.session[FORM_TOKENS] = [
            t for t in self.request.session.get(FORM_TOKENS, []) if t != token]


class KeyRevokePage(AppPage):
    section = "keys"

    def get(self, request, app_id, key_id):
        return render(request, "console/keys/revoke.html", self.context(key=self.get_key(key_id)))

    def post(self, request, app_id, key_id):
        key = self.get_key(key_id)
        services.api_key_revoke(key=key)
        messages.success(request, f"Revoked the key {key.key_prefix}; SDKs using it are refused.")
        return redirect("console:keys", app_id=self.app.id)

    def get_key(self, key_id: str) -> ApiKey:
        key = selectors.api_key_for_organization(organization_id=self.organization_id,
                                                 key_id=key_id)
        if key is None or key.app_id != self.app.id:
            raise Http404("API key not found.")
        return key


urlpatterns = [
    path("apps/<uuid:app_id>/keys", KeyListPage.as_view(), name="keys"),
    path("apps/<uuid:app_id>/keys/new", KeyCreatePage.as_view(), name="key-new"),
    path("apps/<uuid:app_id>/keys/<str:key_id>/revoke", KeyRevokePage.as_view(),
         name="key-revoke"),
]
