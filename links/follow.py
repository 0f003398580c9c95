"""The public side of links (docs/links.md, "Following a link", "Association files"):
`GET /l/{code}` on the service's host, `GET /{code}` on an organization's link domain
(links/middleware.py hands those requests here), and the association files on both.

Following a link records a click exactly as /clicks does
(`tracking.click_intake.click_from_request`: same tables, fingerprint, rate limit, committed
before the answer) with the link's source, campaign, adset, ad and id, then answers by visitor
(links/routing.py):
- a browser: 302 to the destination for its device (a Play Store URL names the click);
- an in-app browser (Facebook, Instagram, TikTok...): the click, then a small page with the
  app's name and an "Open" link to that same destination;
- a link-preview crawler or robot: a page of Open Graph tags, and no click.
HEAD is answered as GET is, uncounted. An unknown, inactive or expired code gets the fallback
page (404: "This link is no longer active", with the app's web domain when it has one), never
an error page and never a click; so does any other path on a link domain. Every page here is
server-rendered, autoescaped, uncacheable and under a Content-Security-Policy that allows no
script, style or frame.
"""

from __future__ import annotations

import json
import logging
from functools import lru_cache
from urllib.parse import parse_qsl

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.template import loader
from django.utils import timezone
from django.views.decorators.http import require_http_methods
from ua_parser import parse_user_agent

from apps_registry import selectors as app_selectors
from links import association, codes, lookup, routing, web_clicks
from links.serializers import own_origin
from tracking.click_intake import click_from_request
from tracking.redirects import safe_redirect_url
from tracking.useragent import MAX_PARSED_LENGTH, device_info, is_bot

logger = logging.getLogger(__name__)

# No script, frame or form: the pages are text and plain links, styled by one stylesheet of
# our own (links/static/links/page.css).
PAGE_POLICY = ("default-src 'none'; img-src 'self' data:; style-src 'self'; base-uri 'none'; "
               "form-action 'none'; frame-ancestors 'none'")
AASA_PATH = "/.well-known/apple-app-site-association"
ASSETLINKS_PATH = "/.well-known/assetlinks.json"
SAFE_METHODS = ("GET", "HEAD")


@require_http_methods(SAFE_METHODS)
def follow(request, code: str):
    """`/l/{code}` on the service's host. A link domain serves its links at `/{code}` only,
    one URL per link (the one its association file and the deep-link resolver know)."""
    try:
        domain = lookup.link_domain_of_host(host=request.META.get("HTTP_HOST", ""))
    except Exception:  # noqa: BLE001 - never an error page
        logger.exception("link domain lookup failed")
        return fallback_page(None)
    if domain is not None:
        return fallback_page(None)
    return follow_link(request, domain=None, code=code)


follow.csrf_exempt = True


@require_http_methods(SAFE_METHODS)
def not_a_link(request, rest: str = ""):
    """`/l/` and `/l/{anything with a slash}` on the service's host."""
    return fallback_page(None)


def follow_link(request, *, domain: lookup.DomainRecord | None, code: str) -> HttpResponse:
    """Record the click and send the visitor on; never raises."""
    now = timezone.now()
    try:
        link = lookup.link_target(domain_id=domain.id if domain else None,
                                  code=code) if codes.could_be_code(code) else None
        app = app_selectors.app_target(app_id=link.app_id) if link is not None else None
        if app is not None and domain is not None and (
                app.organization_id != domain.organization_id):
            app = None  # a domain serves its own organization's links only
    except Exception:  # noqa: BLE001 - never an error page
        logger.exception("link %r not read", code)
        app = None
    if app is None:  # no such link (a link's app is never gone while the link is there)
        return fallback_page(None)
    state = routing.link_state(active=link.active, expires_at=link.expires_at, now=now)
    if state != routing.LIVE:
        return fallback_page(app)

    user_agent = request.META.get("HTTP_USER_AGENT", "")[:MAX_PARSED_LENGTH]
    kind = visitor_kind(user_agent)
    if kind == routing.CRAWLER:
        return preview_page(link, app=app, url=short_url(request, domain=domain, code=code))

    click_id = None
    media_source, campaign_id = link.media_source, link.campaign_id
    web = _web_click(request)
    if web is not None and web.media_source:
        media_source, campaign_id = web.media_source, web.campaign_id or ""
    if request.method == "GET":
        click_id = click_from_request(
            request, app_id=link.app_id, campaign_id=campaign_id,
            media_source=media_source, adset=link.adset, ad=link.ad,
            advertising_id=_query_value(request, "advertising_id"), link_id=link.id)
        if click_id is not None and web is not None:
            _web_click_record(click_id=click_id, link=link, web=web, media_source=media_source,
                              campaign_id=campaign_id, clicked_at=now)
    platform = device_info(user_agent).platform
    destination = routing.link_target(
        device_platform=platform, link=link, app=app, defaults=settings.DEFAULT_STORE_URLS,
        click_id=click_id, media_source=media_source, campaign_id=campaign_id)
    if kind == routing.IN_APP_BROWSER:
        return _page("links/interstitial.html", {
            "app_name": app.name, "open_url": destination.url,
            "app_open_url": routing.app_open_url(device_platform=platform, link=link,
                                                 url_scheme=app.url_scheme)})
    response = HttpResponseRedirect(destination.url)
    response["Cache-Control"] = "no-store"
    return response


@lru_cache(maxsize=8192)
def visitor_kind(user_agent: str) -> str:
    """Browser, in-app browser or crawler, by the maintained uap-core rules (links/routing.py);
    cached per User-Agent like tracking's device detection."""
    if not user_agent:
        return routing.BROWSER
    browser = parse_user_agent(user_agent)
    return routing.visitor_kind(browser_family=browser.family if browser else "",
                                bot=is_bot(user_agent), user_agent=user_agent)


def short_url(request, *, domain: lookup.DomainRecord | None, code: str) -> str | None:
    """The link's own URL for og:url; None when the request's host is not one we may name."""
    try:
        origin = own_origin(request) if domain is None else ""
    except DisallowedHost:
        return None
    return codes.short_url(code=code, domain_host=domain.host if domain else None,
                           own_origin=origin)


def preview_page(link: lookup.LinkTarget, *, app: app_selectors.AppTarget,
                 url: str | None) -> HttpResponse:
    return _page("links/preview.html", {
        "title": link.og_title or app.name, "description": link.og_description,
        "image_url": safe_redirect_url(link.og_image_url), "url": url})


def fallback_page(app: app_selectors.AppTarget | None) -> HttpResponse:
    """The documented fallback: 404, a plain page, the app's web domain when known (the app of
    a link that is off or expired)."""
    return _page("links/fallback.html", {
        "app_name": app.name if app else "",
        "app_url": f"https://{app.domain}/" if app and app.domain else None}, status=404)


def _page(template: str, context: dict, *, status: int = 200) -> HttpResponse:
    # Rendered without the request: the hot path has no session or user, and these pages
    # need neither.
    response = HttpResponse(loader.get_template(template).render(context), status=status)
    response["Cache-Control"] = "no-store"
    response["Content-Security-Policy"] = PAGE_POLICY
    response["Referrer-Policy"] = "no-referrer"
    response["X-Robots-Tag"] = "noindex"
    return response


def _web_click(request) -> web_clicks.WebClickParams | None:
    """A click from a web page (links/web_clicks.py), when web_to_app is there to record it."""
    query = request.META.get("QUERY_STRING", "")
    if web_clicks.current() is None or "web_via=" not in query:
        return None
    # Parsed as _query_value parses (no cap on the field count, the first value of each).
    params: dict[str, str] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        params.setdefault(name, value)
    return web_clicks.web_click_params(params)


def _web_click_record(*, click_id, link, web, media_source: str, campaign_id: str,
                      clicked_at) -> None:
    try:
        web_clicks.current().web_click_record(
            click_id=click_id, app_id=link.app_id, link_id=link.id, params=web,
            media_source=media_source, campaign_id=campaign_id, clicked_at=clicked_at)
    except Exception:  # noqa: BLE001 - the visitor is sent on whatever happened here
        logger.exception("web journey of click %s not recorded", click_id)


def _query_value(request, name: str) -> str | None:
    """One parameter of the query, parsed as /clicks parses it (no cap on the field count)."""
    query = request.META.get("QUERY_STRING", "")
    if not query:
        return None
    return dict(parse_qsl(query, keep_blank_values=True)).get(name)


# --- Association files --------------------------------------------------------------------

@require_http_methods(SAFE_METHODS)
def apple_app_site_association(request):
    """The service's host: every iOS app with a team id, for `/l/*`."""
    return association_file(AASA_PATH, domain=None)


@require_http_methods(SAFE_METHODS)
def asset_links(request):
    """The service's host: every Android app with signing fingerprints."""
    return association_file(ASSETLINKS_PATH, domain=None)


def association_file(path_: str, *, domain: lookup.DomainRecord | None) -> HttpResponse:
    """Always 200 and JSON (Apple and Google treat anything else as no file): empty when the
    apps cannot be read."""
    try:
        apps = lookup.association_apps(
            organization_id=domain.organization_id if domain else None)
    except Exception:  # noqa: BLE001 - an empty file rather than an error
        logger.exception("association file without apps")
        apps = []
    if path_ == AASA_PATH:
        body = association.apple_app_site_association(apps, custom_domain=domain is not None)
    else:
        body = association.asset_links(apps)
    response = HttpResponse(json.dumps(body, separators=(",", ":")),
                            content_type="application/json")
    # Apple's CDN and Google's verifier fetch these now and then; a short public cache
    # keeps a burst of fetches off the database.
    response["Cache-Control"] = "public, max-age=300"
    return response


def serve_link_domain(request, domain: lookup.DomainRecord) -> HttpResponse:
    """Every request to a link domain: its links at `/{code}`, its association files, else the
    fallback page."""
    if request.method not in SAFE_METHODS:
        return HttpResponseNotAllowed(SAFE_METHODS)
    path_ = request.path_info
    if path_ in (AASA_PATH, ASSETLINKS_PATH):
        return association_file(path_, domain=domain)
    code = path_[1:]
    if code and "/" not in code:
        return follow_link(request, domain=domain, code=code)
    return fallback_page(None)
