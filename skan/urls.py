"""Routes of Apple measurement. `urlpatterns`, mounted under /api/v1/: an app's ad network
names (skan/api_views.py). `root_urlpatterns`, mounted at the site root: the well-known paths
Apple posts postback copies to (skan/views.py), which Apple fixes, so they cannot move."""

from django.urls import path

from skan import api_views, views

urlpatterns = [
    path("apps/<uuid:app_id>/ad-networks", api_views.AdNetworkListView.as_view(),
         name="ad-network-list"),
    path("apps/<uuid:app_id>/ad-networks/<str:network_id>",
         api_views.AdNetworkDetailView.as_view(), name="ad-network-detail"),
    path("apps/<uuid:app_id>/skan/campaign-mappings", api_views.CampaignMappingsView.as_view(),
         name="skan-campaign-mappings"),
]

root_urlpatterns = [
    path(".well-known/skadnetwork/report-attribution/", views.SkadnetworkPostbackView.as_view(),
         name="skadnetwork-postback"),
    path(".well-known/appattribution/report-attribution/",
         views.AdAttributionKitPostbackView.as_view(), name="adattributionkit-postback"),
]
