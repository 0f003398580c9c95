"""An app's integrations with Meta and Google Ads (docs/networks.md), under its settings: what
is set (a secret only by its last 4 characters, never shown again), and for an organization's
admins the forms that set them up, checked by the API's serializers and written by its
services. A secret left empty stays as it is. Below them, the ad spend connections of Meta,
Google Ads, TikTok and Apple Ads (docs/networks.md, "Ad spend"): where each value is found in
the network's pages, the last pulls, and a button that pulls now (the test)."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render

from attribution_site.api.exceptions import ApiError, ValidationFailed
from attribution_site.capabilities import CONFIGURE
from console.forms import BOOLEAN, INTEGER, TEXT, FormProblem, form_data, validated
from console.pages import AppPage
from networks import selectors, services
from networks.models import META_VIEW_WINDOW_DEFAULT_HOURS
from networks.serializers import GoogleAdsIntegrationInput, MetaIntegrationInput
from networks.spend import selectors as spend_selectors
from networks.spend import services as spend_services
from networks.spend.connections import SPECS
from networks.spend.serializers import cost_input, pull_answer

COST_NAMES = {"meta": "Meta", "google_ads": "Google Ads", "tiktok": "TikTok",
              "apple_ads": "Apple Ads"}
COST_SHOWN_PULLS = 5
COST_SETTINGS = ("lookback_days", "campaign_ids", "campaign_name_contains")
COST_LABELS = {"lookback_days": "Days pulled each time", "campaign_ids": "Campaign ids",
               "campaign_name_contains": "Campaign name contains", "enabled": "Pull"}

META_FIELDS = {"meta_app_id": TEXT, "install_referrer_decryption_key": TEXT,
               "access_token": TEXT, "remove_access_token": BOOLEAN,
               "view_window_hours": INTEGER}
GOOGLE_FIELDS = {"link_id": TEXT}
MAPPING = "event_mapping"
LABELS = {"meta_app_id": "Meta app id",
          "install_referrer_decryption_key": "Install Referrer Decryption Key",
          "access_token": "Access token", "view_window_hours": "View-through window",
          "link_id": "Link id", MAPPING: "Events sent"}


def mapping_from_text(text: str) -> tuple[dict[str, str], list[str]]:
    """'purchase = fb_mobile_purchase', one per line, as the API's event_mapping object (the
    API's rules then check each name), and what is wrong with the lines that say no such
    thing."""
    mapping, problems = {}, []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        ours, sign, theirs = line.partition("=")
        if not sign or not ours.strip() or not theirs.strip():
            problems.append(f"Line {number}: write our event name = the platform's event name.")
            continue
        mapping[ours.strip()] = theirs.strip()
    return mapping, problems


def validated_with_mapping(serializer_class, data: dict, text: str) -> dict:
    """The serializer's validated data; the mapping's line problems join its errors."""
    mapping, problems = mapping_from_text(text)
    details = {}
    try:
        clean = validated(serializer_class, {**data, MAPPING: mapping})
    except ValidationFailed as error:
        details = dict(error.details)
    if problems:
        details[MAPPING] = problems
    if details:
        raise ValidationFailed(f"Invalid input: {', '.join(sorted(details))}.", details)
    return clean


def mapping_as_text(mapping: dict | None) -> str:
    return "\n".join(f"{ours} = {theirs}" for ours, theirs in (mapping or {}).items())


class IntegrationsPage(AppPage):
    template = "console/apps/integrations.html"
    section = "settings"
    names = {services.META: "Meta", services.GOOGLE_ADS: "Google Ads"}
    capability = CONFIGURE  # reading them too (the table)

    def page(self, request, *, problem=None, kind="", values=None, status=200):
        meta, google = selectors.configs_of(app_id=self.app.id)
        meta_values = values if kind == services.META else {
            "meta_app_id": meta.meta_app_id if meta else "",
            "view_window_hours": meta.view_window_hours if meta else META_VIEW_WINDOW_DEFAULT_HOURS,
            MAPPING: mapping_as_text(meta.event_mapping if meta else None)}
        google_values = values if kind == services.GOOGLE_ADS else {
            MAPPING: mapping_as_text(google.event_mapping if google else None)}
        errors = problem.fields if problem else {}
        costs = [self.cost_block(network, values if kind == f"cost_{network}" else None,
                                 errors if kind == f"cost_{network}" else {})
                 for network in SPECS]
        return render(request, self.template, self.context(
            costs=costs,
            meta=meta, google=google, meta_values=meta_values, google_values=google_values,
            meta_errors=errors if kind == services.META else {},
            google_errors=errors if kind == services.GOOGLE_ADS else {},
            key_required=meta is None, link_required=google is None,
            problem=problem), status=status)

    def get(self, request, app_id):
        return self.page(request)

    def cost_block(self, network: str, typed: dict | None, errors: dict) -> dict:
        """What the page shows of one network's cost part: its fields (where each is found,
        secrets by their last 4), its settings, and its last pulls."""
        spec = SPECS[network]
        connection = spend_selectors.connection_of(app_id=self.app.id, network=network)
        account = connection.account if connection else {}
        fields = [{"name": f"{network}-{f.name}", "label": f.name, "help": f.where,
                   "secret": False, "required": f.required,
                   "value": (typed or {}).get(f.name, account.get(f.name, "")),
                   "errors": errors.get(f.name)} for f in spec.account]
        fields += [{"name": f"{network}-{f.name}", "label": f.name, "secret": True,
                    "help": f"{f.where} Left empty, the stored one stays.",
                    "required": connection is None,
                    "last4": connection.secrets_last4.get(f.name) if connection else None,
                    "errors": errors.get(f.name)} for f in spec.secrets]
        settings_values = typed or {
            "lookback_days": connection.lookback_days if connection else 7,
            "campaign_ids": ", ".join(connection.campaign_ids) if connection else "",
            "campaign_name_contains": connection.campaign_name_contains if connection else ""}
        pulls = (spend_selectors.pulls_of(connection=connection, limit=COST_SHOWN_PULLS)
                 if connection else [])
        return {"network": network, "name": COST_NAMES[network], "connection": connection,
                "media_source": spec.media_source, "fields": fields,
                "settings": settings_values, "errors": errors,
                "pulls": [pull_answer(pull) for pull in pulls]}

    def cost_post(self, request, action: str):
        """Save, test (pull now) or remove one network's cost part."""
        verb, _, network = action.partition("_cost_")
        if network not in SPECS:
            return redirect("console:integrations", app_id=self.app.id)
        name = COST_NAMES[network]
        if verb == "remove":
            spend_services.connection_delete(app_id=self.app.id, network=network)
            messages.success(request, f"Removed the {name} cost connection.")
        elif verb == "pull":
            connection = spend_selectors.connection_of(app_id=self.app.id, network=network)
            if connection is not None:
                spend_services.pull_start(connection=connection,
                                          trigger=spend_services.REQUEST)
                messages.success(request, f"Pulling {name}'s spend now: the result shows "
                                          "under Last pulls.")
        else:
            typed = self.cost_typed(request.POST, network)
            try:
                clean = self.cost_clean(network, typed)
                spend_services.connection_set(app_id=self.app.id, network=network, **clean)
            except (ApiError, spend_services.MissingSecret) as error:
                if isinstance(error, spend_services.MissingSecret):
                    error = ValidationFailed(f"Invalid input: {error.field}.", {
                        error.field: ["Required to set up the connection."]})
                shown = {key: value for key, value in typed.items()
                         if key not in {f.name for f in SPECS[network].secrets}}
                return self.page(request, problem=FormProblem(error, COST_LABELS),
                                 kind=f"cost_{network}", values=shown, status=error.status)
            messages.success(request, f"Saved the {name} cost connection.")
        return redirect("console:integrations", app_id=self.app.id)

    @staticmethod
    def cost_typed(post, network: str) -> dict:
        spec = SPECS[network]
        typed = {f.name: post.get(f"{network}-{f.name}", "") for f in spec.account + spec.secrets}
        typed.update({name: post.get(f"{network}-{name}", "") for name in COST_SETTINGS})
        typed["enabled"] = post.get(f"{network}-enabled") == "on"
        return typed

    @staticmethod
    def cost_clean(network: str, typed: dict) -> dict:
        """The form's text as the API's `cost` part, checked by the API's own rules; errors
        named by field (the form shows them beside each)."""
        value = dict(typed)
        days = value.get("lookback_days", "")
        value["lookback_days"] = int(days) if str(days).strip().isdigit() else (days or None)
        ids = [part.strip() for part in str(value.get("campaign_ids", "")).split(",")]
        value["campaign_ids"] = [part for part in ids if part]
        try:
            return cost_input(network, value)
        except ValidationFailed as error:
            details = {key.removeprefix("cost."): msgs for key, msgs in error.details.items()}
            raise ValidationFailed(f"Invalid input: {', '.join(sorted(details))}.",
                                   details) from None

    def post(self, request, app_id):
        action = request.POST.get("action", "")
        if "_cost_" in action:
            return self.cost_post(request, action)
        kind = action.removeprefix("remove_")
        if kind not in services.KINDS:
            return redirect("console:integrations", app_id=self.app.id)
        if action.startswith("remove_"):
            services.integration_delete(app_id=self.app.id, kind=kind)
            messages.success(request, f"Removed the {self.names[kind]} integration.")
            return redirect("console:integrations", app_id=self.app.id)
        # Shown again as typed, except the secrets: a page never holds one.
        typed = {name: request.POST.get(name, "")
                 for name in ("meta_app_id", "view_window_hours", MAPPING)}
        try:
            self.save(kind, request.POST)
        except ApiError as error:
            return self.page(request, problem=FormProblem(error, LABELS), kind=kind,
                             values=typed, status=error.status)
        messages.success(request, f"Saved the {self.names[kind]} integration.")
        return redirect("console:integrations", app_id=self.app.id)

    def save(self, kind: str, post) -> None:
        text = post.get(MAPPING, "")
        try:
            if kind == services.META:
                data = form_data(post, META_FIELDS)
                remove_token = data.pop("remove_access_token")
                clean = validated_with_mapping(MetaIntegrationInput, data, text)
                services.meta_integration_set(
                    app_id=self.app.id, meta_app_id=clean["meta_app_id"],
                    decryption_key=clean.get("install_referrer_decryption_key"),
                    access_token=clean.get("access_token"),
                    remove_access_token=remove_token, event_mapping=clean[MAPPING],
                    view_window_hours=clean.get("view_window_hours",
                                                META_VIEW_WINDOW_DEFAULT_HOURS))
            else:
                clean = validated_with_mapping(GoogleAdsIntegrationInput,
                                               form_data(post, GOOGLE_FIELDS), text)
                services.google_ads_integration_set(
                    app_id=self.app.id, link_id=clean.get("link_id"),
                    event_mapping=clean[MAPPING])
        except services.MissingSecret as exc:
            raise ValidationFailed(f"Invalid input: {exc.field}.", {exc.field: [
                "Required to set up the integration."]}) from None
