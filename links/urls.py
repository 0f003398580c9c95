"""Routes of links. `urlpatterns`, mounted under /api/v1/: links, link domains, QR codes,
reports (links/api_views.py) and the SDK's deep-link resolve (links/resolve.py).
`root_urlpatterns`, mounted at the site root: following a link and the association files
(links/follow.py). A custom link domain's `/{code}` never reaches the URLconf:
links/middleware.py hands it to links/follow.py."""

from django.urls import path

from links import api_views, follow, resolve

urlpatterns = [
    path("links", api_views.LinkListView.as_view(), name="link-list"),
    path("links/<uuid:link_id>", api_views.LinkDetailView.as_view(), name="link-detail"),
    path("links/<uuid:link_id>/qr", api_views.LinkQrView.as_view(), name="link-qr"),
    path("links/<uuid:link_id>/report", api_views.LinkReportView.as_view(), name="link-report"),
    path("link-domains", api_views.LinkDomainListView.as_view(), name="link-domain-list"),
    path("link-domains/<uuid:domain_id>", api_views.LinkDomainDetailView.as_view(),
         name="link-domain-detail"),
    path("deeplinks/resolve", resolve.DeepLinkResolveView.as_view(), name="deeplinks-resolve"),
]

root_urlpatterns = [
    path("l/", follow.not_a_link),
    path("l/<str:code>", follow.follow, name="links-follow"),
    path("l/<path:rest>", follow.not_a_link),
    path(".well-known/apple-app-site-association", follow.apple_app_site_association,
         name="apple-app-site-association"),
    path(".well-known/assetlinks.json", follow.asset_links, name="assetlinks"),
]
