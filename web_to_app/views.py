"""The banner settings endpoint (docs/web.md, "The banner"): GET for every role, PUT for those
who configure apps (it links apps to each other), as the app's other settings."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework.response import Response

from apps_registry.models import App
from apps_registry.scoping import OrganizationScopedView
from attribution_site.capabilities import CONFIGURE, READ
from links.serializers import link_short_url, own_origin
from web_to_app import selectors, services
from web_to_app.serializers import BannerBody, BannerOutput

BANNER = inline_serializer("BannerAnswer", {"banner": BannerOutput(allow_null=True)})


def banner_answer(request, web_app: App) -> dict | None:
    banner = selectors.banner_of(web_app_id=web_app.id)
    if banner is None:
        return None
    origin = own_origin(request)
    links = [{"app_id": row.app_id, "platform": row.platform, "link_id": row.link.id,
              "url": link_short_url(row.link, own_origin=origin)}
             for row in services.button_links_ensure(web_app=web_app)]
    return BannerOutput({**{f: getattr(banner, f) for f in BannerOutput().fields
                            if f != "links"}, "links": links}).data


class BannerSettingsView(OrganizationScopedView):
    capability = {"GET": READ, "PUT": CONFIGURE}

    @extend_schema(operation_id="apps_banner_retrieve", responses={200: BANNER})
    def get(self, request, app_id):
        return Response({"banner": banner_answer(request, self.get_app(app_id))})

    @extend_schema(operation_id="apps_banner_update", request=BannerBody,
                   responses={200: BANNER})
    def put(self, request, app_id):
        app = self.get_app(app_id)
        payload = BannerBody(data=request.data)
        payload.is_valid(raise_exception=True)
        services.banner_put(web_app=app, fields=payload.validated_data)
        return Response({"banner": banner_answer(request, app)})
