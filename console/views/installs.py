"""The install explorer: one search box (an install id of this app opens that install, anything
else is looked up as a device id, as `GET /api/v1/installs?device_id=` does), the app's latest
installs a keyset page at a time, and one install's page with its result, its decision trail in
plain words (tracking/trail_words.py), the clicks that lost, its re-engagements, and its events
with the revenue they reported. Reads
through the selectors the installs API uses, where reports read (the replica when there is
one: docs/replica.md)."""

from __future__ import annotations

import uuid

from django.http import Http404
from django.shortcuts import redirect, render

from attribution_site.replica import ReportReads
from consent import selectors as consent_selectors
from console.pages import AppPage
from tracking import selectors
from tracking.models import Install
from tracking.trail_words import trail_in_words

PAGE_SIZE = 50
EVENTS_SHOWN = 50


class InstallListPage(ReportReads, AppPage):
    section = "installs"
    template = "console/installs/list.html"

    def get(self, request, app_id):
        query = request.GET.get("q", "").strip()
        if query:
            return self.search(request, query)
        after = selectors.InstallCursor.parse(request.GET.get("after"))
        installs, next_cursor = selectors.installs_page(app_id=self.app.id, after=after,
                                                        limit=PAGE_SIZE)
        return render(request, self.template, self.context(
            installs=installs, next_cursor=next_cursor, paged=after is not None))

    def search(self, request, query: str):
        install = self.install_by_id(query)
        if install is not None:
            return redirect("console:install-detail", app_id=self.app.id, install_id=install.id)
        installs = selectors.installs_for_app(app_id=self.app.id, device_id=query)[:PAGE_SIZE]
        return render(request, self.template, self.context(installs=list(installs),
                                                           query=query))

    def install_by_id(self, text: str) -> Install | None:
        try:
            install_id = uuid.UUID(text)
        except ValueError:
            return None
        install = selectors.install_for_organization(organization_id=self.organization_id,
                                                     install_id=install_id)
        return install if install is not None and install.app_id == self.app.id else None


# Meta's campaign metadata by its own names, in the order of its levels (docs/networks.md).
PLATFORM_FIELD_LABELS = {
    "account_id": "Ad account id", "campaign_group_id": "Campaign id (Meta's campaign group)",
    "campaign_group_name": "Campaign name", "campaign_id": "Ad set id (Meta's campaign)",
    "campaign_name": "Ad set name", "adgroup_id": "Ad id (Meta's ad group)",
    "adgroup_name": "Ad name", "ad_id": "Meta ad id", "ad_objective_name": "Objective",
    "publisher_platform": "Publisher platform"}
# Google's ids and names (its App Conversion API's answer, or the click id in the referrer).
GOOGLE_FIELD_LABELS = {
    "campaign_id": "Campaign id", "campaign_name": "Campaign name",
    "ad_group_id": "Ad group id", "ad_group_name": "Ad group name",
    "network_type": "Network", "network_subtype": "Network subtype",
    "campaign_type": "Campaign type", "interaction_type": "Interaction",
    "ad_event_id": "Google's ad event id", "gclid": "Click id (gclid)",
    "gbraid": "Click id (gbraid)"}
FIELD_LABELS_OF = {"google": GOOGLE_FIELD_LABELS}
PLATFORM_ORIGINS = {"play_referrer": "the Play install referrer",
                    "meta_install_referrer": "Meta's install referrer (Facebook or Instagram app)",
                    "google_ads_api": "Google's App Conversion API (its claim after the install)"}


def platform_fields(metadata: dict | None) -> dict | None:
    """What a platform's referrer said, as the install page lists it: where it came from,
    click or view, and every id and name (labelled, known ones first)."""
    if not isinstance(metadata, dict):
        return None
    campaign = metadata.get("campaign") if isinstance(metadata.get("campaign"), dict) else {}
    labels = FIELD_LABELS_OF.get(metadata.get("platform"), PLATFORM_FIELD_LABELS)
    known = [(label, campaign[name]) for name, label in labels.items() if name in campaign]
    others = [(name, value) for name, value in campaign.items() if name not in labels]
    return {"origin": PLATFORM_ORIGINS.get(metadata.get("origin"), metadata.get("origin")),
            "touch": "view-through" if metadata.get("touch") == "view" else "click-through",
            "fields": known + others}


class InstallDetailPage(ReportReads, AppPage):
    section = "installs"

    def get(self, request, app_id, install_id):
        install = selectors.install_for_organization(organization_id=self.organization_id,
                                                     install_id=install_id)
        if install is None or install.app_id != self.app.id:
            raise Http404("Install not found.")
        return render(request, "console/installs/detail.html", self.context(
            install=install,
            trail=trail_in_words(install.decision, installed_at=install.installed_at),
            reengagements=sorted(install.reengagements.all(), key=lambda r: r.reengaged_at,
                                 reverse=True),
            events=selectors.events_of_install(install_id=install.id, limit=EVENTS_SHOWN),
            consent=consent_selectors.consent_of(app_id=install.app_id, install_id=install.id,
                                                 device_id=install.device_id),
            platform_fields=platform_fields(install.platform_metadata)))
