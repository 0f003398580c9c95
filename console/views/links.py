"""An app's short links (docs/console.md, "Links pages"): the list (newest first,
keyset-paged), a builder form for every field the links API takes, a link's page with its short URL,
its QR code and its report by day, and delete after a confirmation.

Like every console page these are adapters: the form is checked by the links API's own input
serializers and written by its services, the list and the link come from its selectors (scoped
to the organization, so another organization's link is a 404 page), the QR code is the function
`GET /links/{id}/qr` calls, the report the function `GET /links/{id}/report` calls, and the short
URL is the one the API's responses carry.
"""

from __future__ import annotations

from datetime import UTC
from types import SimpleNamespace

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone

from attribution_site.api.exceptions import ApiError, ValidationFailed
from attribution_site.capabilities import EDIT_MARKETING, READ
from attribution_site.replica import reports
from console.forms import BOOLEAN, NULLABLE, TEXT, FormProblem, form_data, validated
from console.pages import AppPage
from console.period import range_from_query
from links import qr, report, routing, selectors, services
from links.serializers import (
    MAX_PARAMS,
    LinkCreateInput,
    LinkUpdateInput,
    link_short_url,
    list_cursor,
    own_origin,
    parse_list_query,
)

FIRST_PARAM_ROWS = 3  # rows shown open; the others wait under "More parameters"
QR_SHOWN, PNG_SIZE = 240, 1024
DUPLICATE_KEY = "This key is given twice."
DELETED = ("The short URL stops working at once: visitors go to the app's fallback and nothing "
           "is counted. Clicks and installs already recorded keep their link in the reports. "
           "This cannot be undone.")
EXPIRY_FORMAT = "%Y-%m-%dT%H:%M"  # datetime-local, read as UTC by the API's DateTimeField

# A form only sends strings: an emptied destination or expiry is null (back to the app's
# default, or never), an emptied text field on edit the empty string the API stores.
EDIT_FIELDS = {"name": TEXT, "media_source": TEXT, "campaign_id": TEXT, "adset": TEXT, "ad": TEXT,
               "deep_link_value": TEXT, "ios_url": NULLABLE, "android_url": NULLABLE,
               "web_url": NULLABLE, "og_title": TEXT, "og_description": TEXT,
               "og_image_url": TEXT, "expires_at": NULLABLE, "active": BOOLEAN}
# A link's code and domain are chosen once (the API refuses them on update: the short URL may
# be printed already).
CREATE_FIELDS = {**EDIT_FIELDS, "code": TEXT, "domain": NULLABLE}
TEXT_FIELDS = tuple(name for name, kind in EDIT_FIELDS.items() if kind == TEXT)
NO_DESTINATIONS = SimpleNamespace(ios_url=None, android_url=None, web_url=None)



def _params(post) -> tuple[dict[str, str], dict[int, list[str]], list[tuple[str, str]]]:
    """The key/value rows as the API's `params` object (rows left empty are left out), the
    rows whose key repeats an earlier row's (a JSON object cannot say a key twice, so the form
    says so rather than keep one of them silently), and every row as typed."""
    rows = [(post.get(f"param_key_{i}", ""), post.get(f"param_value_{i}", ""))
            for i in range(MAX_PARAMS)]
    params: dict[str, str] = {}
    repeated: dict[int, list[str]] = {}
    for index, (key, value) in enumerate(rows):
        if not key and not value:
            continue
        if key in params:
            repeated[index] = [DUPLICATE_KEY]
        params[key] = value
    return params, repeated, rows


class LinksPage(AppPage):
    capability = READ
    section = "links"

    def get_link(self, link_id):
        """The API's scoped lookup: another organization's link, or another app's, is a 404."""
        link = selectors.link_for_organization(organization_id=self.organization_id,
                                               link_id=link_id)
        if link is None or link.app_id != self.app.id:
            raise Http404("Link not found.")
        return link

    @property
    def own_origin(self) -> str:
        return own_origin(self.request)

    def short_url(self, link) -> str:
        return link_short_url(link, own_origin=self.own_origin)

    def default_destinations(self) -> dict[str, str]:
        """Where a link with no destinations sends each device: the follow side's own choice
        (links/routing.py), shown as the hint under each destination field."""
        return {name: routing.link_target(
            device_platform=platform, link=NO_DESTINATIONS, app=self.app,
            defaults=settings.DEFAULT_STORE_URLS, click_id=None, media_source="",
            campaign_id="").url
            for name, platform in (("ios", "ios"), ("android", "android"), ("web", "other"))}

    def context(self, **extra) -> dict:
        return super().context(now=timezone.now(), **extra)


class LinkListPage(LinksPage):
    def get(self, request, app_id):
        cursor = request.GET.get("after") or ""
        try:
            limit, after = parse_list_query({"cursor": cursor})
        except ApiError:
            limit, after, cursor = parse_list_query({})[0], None, ""  # a stale or bad cursor
        links = selectors.links_for_app(app_id=self.app.id, limit=limit + 1, after=after)
        more = len(links) > limit
        links = links[:limit]
        origin = self.own_origin
        with reports():
            clicks = report.recent_clicks(link_ids=[link.id for link in links],
                                          now=timezone.now())
        rows = [{"link": link, "short_url": link_short_url(link, own_origin=origin),
                 "clicks": clicks.get(link.id, 0)} for link in links]
        return render(request, "console/links/list.html", self.context(
            links=rows, paged=bool(cursor),
            next_cursor=list_cursor(links[-1]) if more else None))


class LinkFormPage(LinksPage):
    capability = EDIT_MARKETING
    template = "console/links/form.html"
    creating = True

    def form(self, request, *, values, rows, problem=None, repeated=None, link=None,
             status=200):
        rows = [*rows, *[("", "")] * (MAX_PARAMS - len(rows))]
        param_rows = [{"index": index, "number": index + 1, "key": key, "value": value,
                       "errors": (repeated or {}).get(index, [])}
                      for index, (key, value) in enumerate(rows)]
        filled = max((i + 1 for i, (key, value) in enumerate(rows) if key or value), default=0)
        shown = max(FIRST_PARAM_ROWS, filled + 1)
        return render(request, self.template, self.context(
            values=values, problem=problem, link=link, creating=self.creating,
            param_rows=param_rows[:shown], more_param_rows=param_rows[shown:],
            max_params=MAX_PARAMS,
            hints={name: f"Empty: {url}" for name, url in self.default_destinations().items()},
            short_url=self.short_url(link) if link else None,
            domains=selectors.link_domains_for_organization(
                organization_id=self.organization_id),
            own_host=self.own_origin.split("://", 1)[-1]), status=status)


class LinkCreatePage(LinkFormPage):
    def get(self, request, app_id):
        return self.form(request, values={"active": True}, rows=[])

    def post(self, request, app_id):
        data = form_data(request.POST, CREATE_FIELDS)
        params, repeated, rows = _params(request.POST)
        if params:
            data["params"] = params
        try:
            if repeated:
                raise ValidationFailed("Invalid input: params.", {"params": [DUPLICATE_KEY]})
            fields = dict(validated(LinkCreateInput, {**data, "app_id": str(self.app.id)}))
            fields.pop("app_id")
            link = services.link_create(app=self.app, domain_host=fields.pop("domain", None),
                                        **fields)
        except ApiError as error:
            return self.form(request, values=data, rows=rows, problem=FormProblem(error),
                             repeated=repeated, status=error.status)
        messages.success(request, "Created the link.")
        return redirect("console:link-detail", app_id=self.app.id, link_id=link.id)


class LinkEditPage(LinkFormPage):
    creating = False

    def get(self, request, app_id, link_id):
        link = self.get_link(link_id)
        values = {name: getattr(link, name) for name in EDIT_FIELDS}
        values["expires_at"] = _expiry_text(link)
        return self.form(request, values=values, rows=list(link.params.items()), link=link)

    def post(self, request, app_id, link_id):
        link = self.get_link(link_id)
        data = form_data(request.POST, EDIT_FIELDS, keep_empty=TEXT_FIELDS)
        params, repeated, rows = _params(request.POST)
        data["params"] = params  # every row emptied: no parameters any more
        if "expires_at" in data and data["expires_at"] == _expiry_text(link):
            # Unchanged (the field shows minutes only): not sent, so a link that has expired
            # meanwhile can still be edited without "Must be in the future".
            del data["expires_at"]
        try:
            if repeated:
                raise ValidationFailed("Invalid input: params.", {"params": [DUPLICATE_KEY]})
            services.link_update(link=link, changes=dict(validated(LinkUpdateInput, data)))
        except ApiError as error:
            return self.form(request, values=data, rows=rows, problem=FormProblem(error),
                             repeated=repeated, link=link, status=error.status)
        messages.success(request, "Saved the link.")
        return redirect("console:link-detail", app_id=self.app.id, link_id=link.id)


def _expiry_text(link) -> str | None:
    if link.expires_at is None:
        return None
    return link.expires_at.astimezone(UTC).strftime(EXPIRY_FORMAT)


class LinkDetailPage(LinksPage):
    def get(self, request, app_id, link_id):
        link = self.get_link(link_id)
        chosen = range_from_query(request.GET, today=timezone.now().date())
        with reports():  # the link from the primary, its figures where reports read
            figures = report.link_report(link_id=link.id, start=chosen.start, end=chosen.end)
        typed = ({"start": request.GET.get("start", ""), "end": request.GET.get("end", "")}
                 if chosen.errors else {"start": chosen.start.isoformat(),
                                        "end": chosen.end.isoformat()})
        return render(request, "console/links/detail.html", self.context(
            link=link, short_url=self.short_url(link), qr_shown=QR_SHOWN, png_size=PNG_SIZE,
            defaults=self.default_destinations(), report=figures,
            range=chosen, typed=typed, keep={},
            presets=[{"label": label, "current": key == chosen.preset,
                      "href": f"?range={key}"} for key, label in chosen.presets]))


class LinkQrPage(LinksPage):
    """The link's QR code for its page and its downloads: the API's QR function and query
    rules (`format`, `size`) behind the console's session, so the page needs no API token."""

    def get(self, request, app_id, link_id):
        link = self.get_link(link_id)
        try:
            image_format, size = qr.qr_options(request.GET)
        except ApiError as error:
            return HttpResponse(f"{error.message} {error.details}", status=error.status,
                                content_type="text/plain; charset=utf-8")
        image = qr.qr_image(url=self.short_url(link), image_format=image_format, size=size)
        response = HttpResponse(image.content, content_type=image.content_type)
        disposition = "attachment" if request.GET.get("download") else "inline"
        response["Content-Disposition"] = (
            f'{disposition}; filename="link-{link.code}.{image.extension}"')
        return response


class LinkDeletePage(LinksPage):
    capability = EDIT_MARKETING

    def get(self, request, app_id, link_id):
        link = self.get_link(link_id)
        return render(request, "console/links/delete.html", self.context(
            link=link, short_url=self.short_url(link), consequence=DELETED))

    def post(self, request, app_id, link_id):
        services.link_delete(link=self.get_link(link_id))
        messages.success(request, "Deleted the link.")
        return redirect("console:links", app_id=self.app.id)
