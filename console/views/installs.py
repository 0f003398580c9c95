"""The install explorer: one search box (an install id of this app opens that install, anything
else is looked up as a device id, as `GET /api/v1/installs?device_id=` does), the app's latest
installs a keyset page at a time with their fraud verdict and a filter by it, and one install's
page with its result, its decision trail in plain words (tracking/trail_words.py, reading the
trail the API's install detail answers as `decision`), the clicks that lost, its
re-engagements, and its events with the revenue they reported. Reads through the selectors
the installs API uses, where reports read (the replica when there is one: docs/replica.md)."""

from __future__ import annotations

import uuid

from django.http import Http404
from django.shortcuts import redirect, render

from attribution_site.capabilities import READ
from attribution_site.replica import ReportReads
from consent import selectors as consent_selectors
from console.pages import AppPage
from fraud import verdict
from fraud.words import verdict_brief
from tracking import selectors
from tracking.models import Install
from tracking.trail_words import clicks_listed, trail_in_words

PAGE_SIZE = 50
EVENTS_SHOWN = 50
# The list's filter by fraud status: its choices as the page offers them, and the statuses
# each one keeps. "Any finding" is every status but clean.
FRAUD_FILTERS = {
    "": ("All installs", None),
    "any": ("Any fraud finding", (verdict.FLAGGED, verdict.BLOCKED, verdict.POST_ATTRIBUTION)),
    verdict.BLOCKED: ("Blocked", (verdict.BLOCKED,)),
    verdict.FLAGGED: ("Flagged", (verdict.FLAGGED,)),
    verdict.POST_ATTRIBUTION: ("Post-attribution", (verdict.POST_ATTRIBUTION,)),
    verdict.CLEAN: ("Clean", (verdict.CLEAN,)),
}


def rows_of(installs) -> list[dict]:
    """Each install with its verdict in words and, for a blocked one (stored organic), the
    claim the fraud rules refused."""
    return [{"install": install,
             "fraud": verdict_brief(install.fraud_status, install.fraud_reasons),
             "refused": " / ".join(part for part in (
                 getattr(install, "refused_media_source", None),
                 getattr(install, "refused_campaign_id", None)) if part)}
            for install in installs]


class InstallListPage(ReportReads, AppPage):
    capability = READ
    section = "installs"
    template = "console/installs/list.html"

    def get(self, request, app_id):
        query = request.GET.get("q", "").strip()
        if query:
            return self.search(request, query)
        fraud = request.GET.get("fraud", "")
        if fraud not in FRAUD_FILTERS:
            fraud = ""  # an unknown filter shows every install, as a malformed cursor does
        after = selectors.InstallCursor.parse(request.GET.get("after"))
        page = selectors.installs_page(app_id=self.app.id, after=after, limit=PAGE_SIZE,
                                       fraud_statuses=FRAUD_FILTERS[fraud][1])
        return render(request, self.template, self.context(
            rows=rows_of(page.installs), next_cursor=page.next_cursor,
            searched_to=page.searched_to, paged=after is not None, fraud=fraud,
            fraud_label=FRAUD_FILTERS[fraud][0],
            fraud_filters=[(value, label) for value, (label, _) in FRAUD_FILTERS.items()]))

    def search(self, request, query: str):
        install = self.install_by_id(query)
        if install is not None:
            return redirect("console:install-detail", app_id=self.app.id, install_id=install.id)
        installs = selectors.installs_of_device(app_id=self.app.id, device_id=query,
                                                limit=PAGE_SIZE)
        return render(request, self.template, self.context(rows=rows_of(installs),
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
    capability = READ
    section = "installs"

    def get(self, request, app_id, install_id):
        install = selectors.install_for_organization(organization_id=self.organization_id,
                                                     install_id=install_id)
        if install is None or install.app_id != self.app.id:
            raise Http404("Install not found.")
        device_clicks = selectors.device_clicks_of_window(
            app_id=install.app_id, device_id=install.device_id,
            installed_at=install.installed_at, clicks_listed=clicks_listed(install.decision))
        return render(request, "console/installs/detail.html", self.context(
            install=install, web=selectors.web_journey_of(install),
            fraud=verdict_brief(install.fraud_status, install.fraud_reasons),
            trail=trail_in_words(install.decision, installed_at=install.installed_at,
                                 device_clicks=device_clicks),
            reengagements=sorted(install.reengagements.all(), key=lambda r: r.reengaged_at,
                                 reverse=True),
            events=selectors.events_of_install(install_id=install.id, limit=EVENTS_SHOWN),
            consent=consent_selectors.consent_of(app_id=install.app_id, install_id=install.id,
                                                 device_id=install.device_id),
            platform_fields=platform_fields(install.platform_metadata)))
