"""The well-known paths Apple posts postback copies to (issue 14); mounted at the root."""

from django.urls import path

from skan import views

urlpatterns = [
    path(".well-known/skadnetwork/report-attribution/", views.SkadnetworkPostbackView.as_view(),
         name="skadnetwork-postback"),
    path(".well-known/appattribution/report-attribution/",
         views.AdAttributionKitPostbackView.as_view(), name="adattributionkit-postback"),
]
