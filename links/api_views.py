"""The links API under /api/v1/ (docs/links.md, "The API"): links, link domains, a link's QR code
and its report. JWT, scoped to the caller's organization (apps_registry/scoping.py): another
organization's app, link or domain is a 404. Views parse, call one service or selector, and
serialize; errors are raised and the envelope writes them.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.response import Response

from apps_registry.scoping import OrganizationScopedView
from attribution_site.api.exceptions import NotFound
from attribution_site.api.pagination import MAX_LIMIT
from attribution_site.capabilities import CONFIGURE, EDIT_MARKETING, READ
from attribution_site.replica import ReportReads
from links import qr, report, selectors, services
from links.models import Link
from links.serializers import (
    LinkCreateInput,
    LinkDomainCreateInput,
    LinkDomainOutput,
    LinkOutput,
    LinkReportOutput,
    LinkReportQuery,
    LinkUpdateInput,
    link_short_url,
    list_cursor,
    own_origin,
    parse_list_query,
)

LINK_NOT_FOUND = "Link not found."
DOMAIN_NOT_FOUND = "Link domain not found."
DELETED = inline_serializer("LinkDeleted", {"success": serializers.BooleanField()})
NOT_FOUND = OpenApiResponse(OpenApiTypes.OBJECT,
                            description="No such link in the caller's organization.")
LINK_BODY = inline_serializer("LinkBody", {"link": LinkOutput()})

# No docstrings on the views and their methods below: drf-spectacular would make them every
# operation's description.


class LinkView(OrganizationScopedView):
    capability = {"GET": READ, "POST": EDIT_MARKETING, "PUT": EDIT_MARKETING,
                  "DELETE": EDIT_MARKETING}

    def own_origin(self) -> str:
        return own_origin(self.request)

    def link_body(self, link: Link) -> dict:
        return LinkOutput(link, context={"own_origin": self.own_origin()}).data

    def get_link(self, link_id) -> Link:
        link = selectors.link_for_organization(organization_id=self.organization_id,
                                               link_id=link_id)
        if link is None:
            raise NotFound(LINK_NOT_FOUND)
        return link


class LinkListView(LinkView):
    @extend_schema(
        operation_id="links_list",
        parameters=[
            OpenApiParameter("app_id", OpenApiTypes.UUID, required=True),
            OpenApiParameter("limit", int, description=f"1 to {MAX_LIMIT}, default 50"),
            OpenApiParameter("cursor", str, description="next_cursor of the previous page"),
        ],
        responses={200: inline_serializer("LinkList", {
            "links": LinkOutput(many=True),
            "next_cursor": serializers.CharField(allow_null=True, help_text=(
                "Pass as `cursor` for the next page; null on the last page."))}),
            404: OpenApiResponse(OpenApiTypes.OBJECT, description="No such app in the "
                                 "caller's organization.")})
    def get(self, request):
        app = self.get_app_from_query("app_id")
        limit, after = parse_list_query(request.query_params)
        links = selectors.links_for_app(app_id=app.id, limit=limit + 1, after=after)
        more = len(links) > limit
        links = links[:limit]
        origin = self.own_origin()
        return Response({
            "links": LinkOutput(links, many=True, context={"own_origin": origin}).data,
            "next_cursor": list_cursor(links[-1]) if more else None})

    @extend_schema(request=LinkCreateInput, responses={
        201: inline_serializer("LinkCreated", {"link": LinkOutput()}),
        404: OpenApiResponse(OpenApiTypes.OBJECT, description="No such app in the caller's "
                             "organization."),
        409: OpenApiResponse(OpenApiTypes.OBJECT, description="The code is taken on this "
                             "link domain (details name `code`).")})
    def post(self, request):
        payload = LinkCreateInput(data=request.data)
        payload.is_valid(raise_exception=True)
        fields = dict(payload.validated_data)
        app = self.get_app(fields.pop("app_id"))
        link = services.link_create(app=app, domain_host=fields.pop("domain", None), **fields)
        return Response({"link": self.link_body(link)}, status=status.HTTP_201_CREATED)


class LinkDetailView(LinkView):
    @extend_schema(responses={200: LINK_BODY, 404: NOT_FOUND})
    def get(self, request, link_id):
        return Response({"link": self.link_body(self.get_link(link_id))})

    @extend_schema(request=LinkUpdateInput, responses={200: LINK_BODY, 404: NOT_FOUND})
    def put(self, request, link_id):
        link = self.get_link(link_id)
        payload = LinkUpdateInput(data=request.data)
        payload.is_valid(raise_exception=True)
        services.link_update(link=link, changes=payload.validated_data)
        return Response({"link": self.link_body(link)})

    @extend_schema(responses={200: DELETED, 404: NOT_FOUND})
    def delete(self, request, link_id):
        services.link_delete(link=self.get_link(link_id))
        return Response({"success": True})


class ImageNegotiation(BaseContentNegotiation):
    """The QR code answers its image whatever the Accept header says (`image/*` included),
    and its errors answer JSON: never a 406."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class LinkQrView(LinkView):
    content_negotiation_class = ImageNegotiation

    @extend_schema(
        parameters=[
            OpenApiParameter("format", OpenApiTypes.STR, enum=list(qr.FORMATS),
                             description=f"Default {qr.DEFAULT_FORMAT}."),
            OpenApiParameter("size", OpenApiTypes.INT, description=(
                f"Width in pixels, {qr.MIN_SIZE} to {qr.MAX_SIZE}, default {qr.DEFAULT_SIZE}. "
                "A PNG uses whole pixels per module, so it may be a little smaller.")),
        ],
        responses={
            (200, "image/svg+xml"): OpenApiResponse(OpenApiTypes.BINARY,
                                                    description="The short URL as an SVG."),
            (200, "image/png"): OpenApiResponse(OpenApiTypes.BINARY,
                                                description="The short URL as a PNG."),
            404: NOT_FOUND})
    def get(self, request, link_id):
        image_format, size = qr.qr_options(request.query_params)
        link = self.get_link(link_id)
        image = qr.qr_image(url=link_short_url(link, own_origin=self.own_origin()),
                            image_format=image_format, size=size)
        response = HttpResponse(image.content, content_type=image.content_type)
        response["Content-Disposition"] = f'inline; filename="link-{link.code}.{image.extension}"'
        return response


class LinkReportView(ReportReads, LinkView):
    @extend_schema(
        parameters=[
            OpenApiParameter("start_date", OpenApiTypes.STR, required=True, description=(
                "ISO 8601 date or date-time; reduced to its UTC day.")),
            OpenApiParameter("end_date", OpenApiTypes.STR, required=True, description=(
                "ISO 8601 date or date-time; reduced to its UTC day, which is included. At "
                "most ANALYTICS_MAX_RANGE_DAYS (366) days from start_date.")),
        ],
        description=("The link's archived clicks (by click day), installs attributed through "
                     "it (by install day) and deep-link opens (POST /deeplinks/resolve, by "
                     "open day), every UTC day of the range, with totals. Exact counts."),
        responses={200: LinkReportOutput, 404: NOT_FOUND})
    def get(self, request, link_id):
        params = LinkReportQuery(data=request.query_params)
        params.is_valid(raise_exception=True)
        link = self.get_link(link_id)
        answer = report.link_report(link_id=link.id, start=params.validated_data["start_date"],
                                    end=params.validated_data["end_date"])
        return Response(LinkReportOutput(answer).data)


class LinkDomainListView(OrganizationScopedView):
    capability = {"GET": READ, "POST": CONFIGURE}

    @extend_schema(operation_id="link_domains_list", responses={200: inline_serializer(
        "LinkDomainList", {"link_domains": LinkDomainOutput(many=True)})})
    def get(self, request):
        domains = selectors.link_domains_for_organization(organization_id=self.organization_id)
        return Response({"link_domains": LinkDomainOutput(domains, many=True).data})

    @extend_schema(request=LinkDomainCreateInput, responses={
        201: inline_serializer("LinkDomainCreated", {"link_domain": LinkDomainOutput()}),
        409: OpenApiResponse(OpenApiTypes.OBJECT, description="The host is registered "
                             "already (details name `host`).")})
    def post(self, request):
        payload = LinkDomainCreateInput(data=request.data)
        payload.is_valid(raise_exception=True)
        domain = services.link_domain_create(
            organization_id=self.organization_id, host=payload.validated_data["host"],
            service_hosts=_service_hosts(request))
        return Response({"link_domain": LinkDomainOutput(domain).data},
                        status=status.HTTP_201_CREATED)


class LinkDomainDetailView(OrganizationScopedView):
    capability = CONFIGURE

    @extend_schema(responses={
        200: inline_serializer("LinkDomainDeleted", {"success": serializers.BooleanField()}),
        404: OpenApiResponse(OpenApiTypes.OBJECT, description="No such link domain in the "
                             "caller's organization."),
        409: OpenApiResponse(OpenApiTypes.OBJECT, description="Links still use the domain "
                             "(details carry `link_count`); delete them first.")})
    def delete(self, request, domain_id):
        domain = selectors.link_domain_for_organization(organization_id=self.organization_id,
                                                        domain_id=domain_id)
        if domain is None:
            raise NotFound(DOMAIN_NOT_FOUND)
        services.link_domain_delete(domain=domain)
        return Response({"success": True})


def _service_hosts(request) -> set[str]:
    """The hosts this service answers as itself: the request's and LINKS_BASE_URL's."""
    hosts = {urlsplit(f"//{request.get_host()}").hostname or ""}
    if settings.LINKS_BASE_URL:
        hosts.add(urlsplit(settings.LINKS_BASE_URL).hostname or "")
    return hosts
