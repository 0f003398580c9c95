"""The organization's apps: the list (the console's home page), create, edit the fields the API
lets change, and delete after a confirmation that says what goes with the app. Checked by the
API's serializers and written by its services."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render

from apps_registry import app_fields, selectors, services
from apps_registry.models import IosFingerprinting
from apps_registry.serializers import AppCreateInput, AppUpdateInput
from attribution_site.api.exceptions import ApiError
from attribution_site.capabilities import CONFIGURE, READ
from console.forms import INTEGER, NULLABLE, TEXT, FormProblem, form_data, validated
from console.pages import AppPage, ConsolePage
from delivery import selectors as delivery_selectors

CREATE_FIELDS = {"name": TEXT, "platform": TEXT, "bundle_id": TEXT, "apple_app_id": TEXT,
                 "package_name": TEXT, "domain": TEXT, "app_store_url": TEXT,
                 "play_store_url": TEXT, "apple_team_id": TEXT, "url_scheme": TEXT,
                 "ios_fingerprinting": TEXT, "ip_retention_days": INTEGER,
                 "raw_retention_days": INTEGER}
FINGERPRINTS = "android_sha256_fingerprints"
NAME_MISMATCH = "Does not match the app's name; nothing was deleted."
PLATFORMS = [("ios", "iOS"), ("android", "Android"), ("web", "Web")]
UPDATE_FIELDS = {"name": TEXT, "app_store_url": NULLABLE, "play_store_url": NULLABLE,
                 "apple_team_id": NULLABLE, "url_scheme": NULLABLE, "ios_fingerprinting": TEXT,
                 "ip_retention_days": INTEGER, "raw_retention_days": INTEGER}
# The policy's choices as the form's select shows them (docs/apple.md, "Consent-aware
# fingerprinting").
IOS_FINGERPRINTING = IosFingerprinting.choices
RETENTION_DEFAULTS = {"ip_retention_days": app_fields.IP_RETENTION_DEFAULT_DAYS,
                      "raw_retention_days": app_fields.RAW_RETENTION_DEFAULT_DAYS}


def with_fingerprints(data: dict, post) -> dict:
    """The fingerprints textarea as the API's list: one per line or comma-separated; an
    emptied box clears them."""
    if FINGERPRINTS in post:
        text = post.get(FINGERPRINTS, "").replace(",", "\n")
        data[FINGERPRINTS] = [line.strip() for line in text.splitlines() if line.strip()]
    return data


def as_typed(values: dict, post) -> dict:
    """The values to show again after an error: the fingerprints box holds the text as typed,
    never the list the API was given (which would come back as "[]" and fail the next submit)."""
    if FINGERPRINTS in post:
        values = {**values, FINGERPRINTS: post.get(FINGERPRINTS, "")}
    return values


def form_values(app) -> dict:
    values = {name: getattr(app, name) or "" for name in CREATE_FIELDS}
    values[FINGERPRINTS] = "\n".join(app.android_sha256_fingerprints or [])
    return values


class AppListPage(ConsolePage):
    capability = READ

    def get(self, request):
        chosen = request.GET.get("app")  # the app switcher's choice
        if chosen:
            try:
                return redirect("console:overview", app_id=self.get_app(uuid.UUID(chosen)).id)
            except ValueError:
                raise Http404("App not found.") from None
        return render(request, "console/apps/list.html", {"apps": self.apps()})


class AppCreatePage(ConsolePage):
    capability = CONFIGURE
    template = "console/apps/form.html"

    def get(self, request):
        return render(request, self.template, {
            "values": {"platform": "android",
                       "ios_fingerprinting": IosFingerprinting.NEVER_WITHOUT_CONSENT,
                       **RETENTION_DEFAULTS},
            "apps": self.apps(), "creating": True, "platforms": PLATFORMS,
            "ios_fingerprinting": IOS_FINGERPRINTING})

    def post(self, request):
        data = with_fingerprints(form_data(request.POST, CREATE_FIELDS), request.POST)
        try:
            app = services.app_create(organization_id=self.organization_id,
                                      **validated(AppCreateInput, data))
        except ApiError as error:
            return render(request, self.template,
                          {"values": as_typed({**RETENTION_DEFAULTS, **data}, request.POST),
                           "problem": FormProblem(error),
                           "apps": self.apps(),
                           "creating": True, "platforms": PLATFORMS,
                           "ios_fingerprinting": IOS_FINGERPRINTING}, status=error.status)
        messages.success(request, f"Created {app.name}. Next: create an API key for its SDK.")
        return redirect("console:overview", app_id=app.id)


class AppEditPage(AppPage):
    capability = CONFIGURE
    template = "console/apps/form.html"
    section = "settings"

    def context(self, **extra) -> dict:
        return super().context(ios_fingerprinting=IOS_FINGERPRINTING, **extra)

    def get(self, request, app_id):
        return render(request, self.template, self.context(values=form_values(self.app)))

    def post(self, request, app_id):
        data = with_fingerprints(form_data(request.POST, UPDATE_FIELDS, keep_empty=("name",)),
                                 request.POST)
        try:
            services.app_update(app=self.app, changes=validated(AppUpdateInput, data,
                                                               instance=self.app))
        except ApiError as error:
            values = as_typed({**form_values(self.app), **data}, request.POST)
            return render(request, self.template,
                          self.context(values=values, problem=FormProblem(error)),
                          status=error.status)
        messages.success(request, "Saved.")
        return redirect("console:app-edit", app_id=self.app.id)


class AppDeletePage(AppPage):
    capability = CONFIGURE
    section = "settings"

    def get(self, request, app_id):
        return render(request, "console/apps/delete.html", self.context(counts=self.counts()))

    def counts(self) -> dict[str, int]:
        return {
            "keys": selectors.api_keys_for_app(app_id=self.app.id).count(),
            "postbacks": delivery_selectors.configs_for_app(kind="postback",
                                                            app_id=self.app.id).count(),
            "webhooks": delivery_selectors.configs_for_app(kind="webhook",
                                                           app_id=self.app.id).count(),
        }

    def post(self, request, app_id):
        if request.POST.get("confirm_name", "") != self.app.name:
            return render(request, "console/apps/delete.html", self.context(
                mismatch=True, mismatch_errors=[NAME_MISMATCH], counts=self.counts()),
                status=400)
        name = self.app.name
        services.app_delete(app=self.app)
        messages.success(request, f"Deleted {name} and its data.")
        return redirect("console:home")
