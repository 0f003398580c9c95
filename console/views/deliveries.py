"""Postbacks and webhooks (spec: Postback endpoints, Webhook endpoints; docs/delivery.md):
the app's configurations of both kinds, create and edit forms checked by the API's own input
serializers, activate and deactivate, delete after a confirmation, a test send with its outcome,
the webhook secret shown once, and each configuration's delivery log with redelivery of failed
deliveries. Every write is the service the API's views call; the log is the API's selector and
query parser (cursor, state filter).

The two kinds mirror each other as in delivery/views.py: one set of pages, with `Kind` naming a
kind's serializers, form fields and services. A configuration is looked up by the API's scoped
selector and must belong to the app in the URL, so another organization's (or another app's)
configuration or delivery is a 404 page.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse

from attribution_site.api.exceptions import ApiError, NotFound
from attribution_site.capabilities import CONFIGURE, READ
from attribution_site.replica import ReportReads
from console import shown_once
from console.forms import BOOLEAN, LIST, TEXT, FormProblem, form_data, validated
from console.pages import AppPage
from delivery import payloads, selectors, services
from delivery.models import ConsentPolicy, HttpMethod, State
from delivery.serializers import (
    PostbackCreateInput,
    PostbackUpdateInput,
    WebhookCreateInput,
    WebhookUpdateInput,
    log_cursor,
    parse_log_query,
)

EXCERPT = 300  # characters of a response body shown before "show all"


@dataclass(frozen=True)
class Kind:
    name: str  # "postback" or "webhook", as in the URLs and the API
    label: str
    create_input: type
    update_input: type
    create_fields: dict[str, str]
    update_fields: dict[str, str]
    url_field: str
    create: Callable[..., tuple[Any, str | None]]  # (configuration, secret or None)
    update: Callable[[Any, dict], Any]
    remove: Callable[[Any], None]
    send_test: Callable[[Any], Any]

    @property
    def plural(self) -> str:
        return f"{self.name}s"


def _postback_create(app, fields):
    return services.postback_create(app=app, **fields), None


KINDS = {
    "postback": Kind(
        name="postback", label="Postback",
        create_input=PostbackCreateInput, update_input=PostbackUpdateInput,
        create_fields={"media_source": TEXT, "postback_url": TEXT, "http_method": TEXT,
                       "events": LIST, "active": BOOLEAN, "consent_policy": TEXT},
        update_fields={"media_source": TEXT, "postback_url": TEXT, "http_method": TEXT,
                       "events": LIST, "active": BOOLEAN, "consent_policy": TEXT},
        url_field="postback_url",
        create=_postback_create,
        update=lambda config, changes: services.postback_update(postback=config,
                                                                changes=changes),
        remove=lambda config: services.postback_delete(postback=config),
        send_test=lambda config: services.postback_test(postback=config)),
    "webhook": Kind(
        name="webhook", label="Webhook",
        create_input=WebhookCreateInput, update_input=WebhookUpdateInput,
        create_fields={"url": TEXT, "events": LIST},
        update_fields={"url": TEXT, "events": LIST, "active": BOOLEAN},
        url_field="url",
        create=lambda app, fields: services.webhook_create(app=app, **fields),
        update=lambda config, changes: services.webhook_update(webhook=config, changes=changes),
        remove=lambda config: services.webhook_delete(webhook=config),
        send_test=lambda config: services.webhook_test(webhook=config)),
}


def _form(post, fields: dict[str, str]) -> dict:
    data = form_data(post, fields, keep_empty=tuple(name for name, kind in fields.items()
                                                    if kind == TEXT))
    # No box ticked is an empty list, so the API's "may not be empty" says so, rather than
    # the API's default (create) or no change (edit) silently taking its place.
    data.setdefault("events", [])
    return data


class DeliveriesPage(AppPage):
    capability = CONFIGURE  # the configurations: receivers' URLs
    section = "deliveries"

    def get(self, request, app_id):
        return render(request, "console/deliveries/list.html", self.context(
            postbacks=selectors.configs_with_waiting(kind="postback", app_id=self.app.id),
            webhooks=selectors.configs_with_waiting(kind="webhook", app_id=self.app.id)))


class KindPage(AppPage):
    """A page about one kind; with `config_id` in the URL, about one configuration of it."""

    capability = CONFIGURE

    section = "deliveries"

    def dispatch(self, request, *args, **kwargs):
        self.kind = KINDS[kwargs["kind"]]
        return super().dispatch(request, *args, **kwargs)

    @property
    def config(self):
        if not hasattr(self, "_config"):
            config = selectors.config_for_organization(
                kind=self.kind.name, organization_id=self.organization_id,
                config_id=self.kwargs["config_id"])
            if config is None or config.app_id != self.app.id:
                raise Http404(f"{self.kind.label} not found.")
            self._config = config
        return self._config

    def context(self, **extra) -> dict:
        return super().context(kind=self.kind, event_types=payloads.EVENT_TYPES,
                               http_methods=HttpMethod.values, macros=payloads.MACROS,
                               consent_policies=ConsentPolicy.choices, **extra)

    def values_of(self, config) -> dict:
        return {name: getattr(config, name) for name in self.kind.update_fields}


class ConfigCreatePage(KindPage):
    template = "console/deliveries/form.html"

    def get(self, request, app_id, kind):
        values = {"events": [payloads.INSTALL], "http_method": HttpMethod.GET, "active": True,
                  "consent_policy": ConsentPolicy.STRIP}
        return render(request, self.template, self.context(values=values, creating=True))

    def post(self, request, app_id, kind):
        data = _form(request.POST, self.kind.create_fields)
        try:
            fields = dict(validated(self.kind.create_input, {**data, "app_id": str(app_id)}))
            fields.pop("app_id")
            config, secret = self.kind.create(self.app, fields)
        except ApiError as error:
            return render(request, self.template, self.context(
                values=data, problem=FormProblem(error), creating=True), status=error.status)
        if secret is None:
            messages.success(request, f"Created the {self.kind.name}.")
            return redirect("console:deliveries", app_id=self.app.id)
        shown_once.keep(request, slot=f"webhook:{config.id}", secret=secret)
        return redirect("console:webhook-secret", app_id=self.app.id, config_id=config.id)


class WebhookSecretPage(AppPage):
    capability = CONFIGURE
    section = "deliveries"

    def get(self, request, app_id, config_id):
        webhook = selectors.config_for_organization(
            kind="webhook", organization_id=self.organization_id, config_id=config_id)
        if webhook is None or webhook.app_id != self.app.id:
            raise Http404("Webhook not found.")
        secret = shown_once.take(request, slot=f"webhook:{webhook.id}")
        return shown_once.no_store(render(request, "console/deliveries/secret.html", self.context(
            webhook=webhook, secret=secret, message=services.SECRET_MESSAGE)))


class ConfigEditPage(KindPage):
    template = "console/deliveries/form.html"

    def get(self, request, app_id, kind, config_id):
        return render(request, self.template, self.context(
            config=self.config, values=self.values_of(self.config)))

    def post(self, request, app_id, kind, config_id):
        config = self.config
        data = _form(request.POST, self.kind.update_fields)
        try:
            self.kind.update(config, dict(validated(self.kind.update_input, data)))
        except ApiError as error:
            return render(request, self.template, self.context(
                config=config, values=data, problem=FormProblem(error)), status=error.status)
        messages.success(request, f"Saved the {self.kind.name}.")
        return redirect("console:deliveries", app_id=self.app.id)


class ConfigActivePage(KindPage):
    """POST `active=true|false`: the state wanted, so a repeated click changes nothing more."""

    def post(self, request, app_id, kind, config_id):
        config = self.config
        data = form_data(request.POST, {"active": BOOLEAN})
        self.kind.update(config, dict(validated(self.kind.update_input, data)))
        state = "activated" if config.active else "deactivated: nothing more is sent"
        messages.success(request, f"{self.kind.label} {state}.")
        return redirect("console:deliveries", app_id=self.app.id)


class ConfigDeletePage(KindPage):
    def get(self, request, app_id, kind, config_id):
        return render(request, "console/deliveries/delete.html", self.context(config=self.config))

    def post(self, request, app_id, kind, config_id):
        self.kind.remove(self.config)
        messages.success(request, f"Deleted the {self.kind.name}; its delivery log is kept.")
        return redirect("console:deliveries", app_id=self.app.id)


class ConfigTestPage(KindPage):
    """POST: send a sample now (as the API's test endpoint does) and show how it went."""

    def post(self, request, app_id, kind, config_id):
        config = self.config
        try:
            attempt = self.kind.send_test(config)
        except NotFound:  # deleted while the test was being sent
            raise Http404(f"{self.kind.label} not found.") from None
        return render(request, "console/deliveries/test_result.html", self.context(
            config=config, attempt=attempt, excerpt=EXCERPT))


class ConfigLogPage(ReportReads, KindPage):
    capability = READ

    def get(self, request, app_id, kind, config_id):
        config = self.config
        params = QueryDict(mutable=True)
        for name in ("cursor", "state", "limit"):
            values = [value for value in request.GET.getlist(name) if value.strip()]
            if values:
                params.setlist(name, values)
        context = {"config": config, "states": State.values, "chosen_states": [],
                   "excerpt": EXCERPT, "entries": [], "failed_ids": []}
        try:
            query = parse_log_query(params, filter_name=f"{self.kind.name}_id")
        except ApiError as error:
            return render(request, "console/deliveries/log.html", self.context(
                **context, problem=FormProblem(error)), status=error.status)
        page = selectors.delivery_log(app_id=self.app.id, kind=self.kind.name,
                                      config_id=config.id, limit=query.limit,
                                      states=query.states, before=query.before)
        filters = {"state": list(query.states)} if query.states else {}
        cursor = log_cursor(page.next_position)
        return render(request, "console/deliveries/log.html", self.context(**{
            **context, "entries": _named(page.entries), "chosen_states": query.states,
            "first_page": query.before is None,
            "older": urlencode({**filters, "cursor": cursor}, doseq=True) if cursor else None,
            "newest": urlencode(filters, doseq=True),
            "here": params.urlencode(),
            "failed_ids": list(dict.fromkeys(
                str(entry.delivery_id) for entry in page.entries
                if entry.delivery.state == State.FAILED))}))


def _named(entries: list) -> list:
    """The entries, each with the install and the event it carries as the API's log names
    them (`payloads.log_subject`): `subject_install_id`, `subject_event_id`."""
    for entry in entries:
        delivery = entry.delivery
        entry.subject_install_id, entry.subject_event_id = payloads.log_subject(
            event_type=delivery.event_type, source_id=delivery.source_id,
            install_id=delivery.install_id, is_test=delivery.is_test)
    return entries


class RedeliverPage(KindPage):
    """POST `delivery_id` (one or several): failed deliveries of this configuration get one
    more attempt. Ids that are not (a failed delivery of this configuration) are left out."""

    def post(self, request, app_id, kind, config_id):
        config = self.config
        wanted = []
        for value in request.POST.getlist("delivery_id"):
            try:
                wanted.append(uuid.UUID(value))
            except ValueError:
                continue
        ids = selectors.failed_deliveries_of_config(kind=self.kind.name, config_id=config.id,
                                                    delivery_ids=wanted)
        count = services.deliveries_redeliver(delivery_ids=ids) if ids else 0
        if count:
            messages.success(request, f"Redelivering {count} deliver{'y' if count == 1 else 'ies'}"
                                      ": one more attempt each, sent shortly.")
        else:
            messages.warning(request, "Nothing to redeliver: only failed deliveries can be.")
        # Back to the same page of the log: its query, parsed and written out again by us.
        back = QueryDict(request.POST.get("back", "")).urlencode()
        target = reverse("console:delivery-log", args=[self.app.id, self.kind.name, config.id])
        return redirect(f"{target}?{back}" if back else target)


PLATFORM_LABELS = {"google_ads": "Google Ads", "meta": "Meta"}


class PlatformLogPage(ReportReads, AppPage):
    """The conversions sent to Google Ads or Meta (docs/networks.md, "Sending conversions"):
    the API's postback log with `platform`, read by the same selector and query parser."""

    capability = READ

    section = "deliveries"

    def get(self, request, app_id, platform):
        if platform not in PLATFORM_LABELS:
            raise Http404("No such platform.")
        params = QueryDict(mutable=True)
        for name in ("cursor", "state"):
            values = [value for value in request.GET.getlist(name) if value.strip()]
            if values:
                params.setlist(name, values)
        context = {"platform": platform, "platform_label": PLATFORM_LABELS[platform],
                   "states": State.values, "chosen_states": [], "entries": [],
                   "excerpt": EXCERPT}
        try:
            query = parse_log_query(params, filter_name="postback_id")
        except ApiError as error:
            return render(request, "console/deliveries/platform_log.html", self.context(
                **context, problem=FormProblem(error)), status=error.status)
        page = selectors.delivery_log(app_id=self.app.id, kind=platform, config_id=None,
                                      limit=query.limit, states=query.states,
                                      before=query.before)
        filters = {"state": list(query.states)} if query.states else {}
        cursor = log_cursor(page.next_position)
        return render(request, "console/deliveries/platform_log.html", self.context(**{
            **context, "entries": _named(page.entries), "chosen_states": query.states,
            "first_page": query.before is None,
            "older": urlencode({**filters, "cursor": cursor}, doseq=True) if cursor else None,
            "newest": urlencode(filters, doseq=True)}))
