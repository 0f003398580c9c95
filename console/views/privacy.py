"""An app's data-subject requests (docs/privacy.md, "Erasure and access (OpenDSR)"): the list
with each request's state, a form that files one (a type and one identity), and a request's
page (state, what was found, the access document's link, cancel while pending). Checked by the
API's `ConsoleRequestInput`, filed and cancelled by privacy.services, read by privacy.selectors,
so another organization's request is a 404; like the API, only the organization's admins see
these pages.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone

from attribution_site.api.exceptions import ApiError
from attribution_site.capabilities import ADMINISTER
from console.forms import TEXT, FormProblem, form_data, validated
from console.pages import AppPage
from privacy import identities, selectors, services
from privacy.models import RequestType, Source, SubjectRequest
from privacy.serializers import ConsoleRequestInput
from privacy.views import status_answer

# What a request's `found` names, as a privacy officer reads it, in the order the page lists
# them: an erasure counts rows per table (the API documents the table names, so they stay
# there), an access request records per kind. privacy/erasure.py lists every part that returns
# one.
FOUND_LABELS = {
    "tracking_install": "Installs",
    "tracking_event": "Events",
    "tracking_click": "Clicks (hot store)",
    "tracking_clickarchive": "Clicks (archive)",
    "delivery_delivery": "Postbacks and webhooks",
    "delivery_deliveryattempt": "Postback and webhook attempts",
    "links_linkopen": "Link opens",
    "apple_ads_claim": "Apple Ads claims",
    "apple_ads_attempt": "Apple Ads claim attempts",
    "google_ads_claim": "Google Ads claims",
    "google_ads_attempt": "Google Ads claim attempts",
    "consent_consentrecord": "Consent records",
    "web_to_app_bannerevent": "Banner events",
    "web_to_app_webclick": "Web clicks of links",
    "installs": "Installs",
    "events": "Events",
    "clicks": "Clicks",
    "deliveries": "Postbacks and webhooks",
    "link_opens": "Link opens",
    "apple_ads_claims": "Apple Ads claims",
    "google_ads_claims": "Google Ads claims",
    "consent": "Consent records",
    "banner_events": "Banner events",
    "web_clicks": "Web clicks of links",
    "web_ids": "Web ids",
    "visits": "Visits (web pages)",
}


def found_label(name: str) -> str:
    """The label of a table or kind in `found`; a name without one is shown as it is."""
    return FOUND_LABELS.get(name, name)


def found_rows(found: dict[str, int] | None) -> list[tuple[str, int]]:
    """(label, count) per name, installs first as in FOUND_LABELS, unknown names after."""
    order = {name: n for n, name in enumerate(FOUND_LABELS)}
    names = sorted(found or {}, key=lambda name: order.get(name, len(order)))
    return [(found_label(name), found[name]) for name in names]


FIELDS = {"subject_request_type": TEXT, "identity_type": TEXT, "identity_value": TEXT}
LABELS = {"subject_request_type": "Request type", "identity_type": "Identity type",
          "identity_value": "Identity"}


class PrivacyPage(AppPage):
    section = "privacy"
    capability = ADMINISTER

    def context(self, **extra) -> dict:
        return super().context(request_types=[t.value for t in RequestType],
                               identity_types=identities.IDENTITY_TYPES, **extra)


class PrivacyRequestsPage(PrivacyPage):
    template = "console/privacy/list.html"

    def get(self, request, app_id):
        return self.page(request, values={"subject_request_type": "erasure",
                                          "identity_type": identities.IDENTITY_TYPES[0]})

    def post(self, request, app_id):
        data = form_data(request.POST, FIELDS)
        try:
            clean = validated(ConsoleRequestInput, data)
            now = timezone.now()
            subject_request, _ = services.request_file(
                app=self.app, request_type=clean["subject_request_type"],
                identity_type=clean["identity_type"], identity_value=clean["identity_value"],
                submitted_time=now, now=now, source=Source.CONSOLE,
                base_url=request.build_absolute_uri("/").rstrip("/"),
                requested_by=request.user)
        except ApiError as error:
            return self.page(request, values=data, problem=FormProblem(error, LABELS),
                             status=error.status)
        messages.success(request, f"Filed the {subject_request.request_type} request; it runs "
                                  "within minutes.")
        return redirect("console:privacy-request", app_id=self.app.id,
                        request_id=subject_request.id)

    def page(self, request, *, values, problem=None, status=200):
        rows = list(selectors.requests_for_app(app_id=self.app.id)[:100])
        return render(request, self.template, self.context(
            requests=rows, values=values, problem=problem), status=status)


class PrivacyRequestPage(PrivacyPage):
    def get_request(self, request_id) -> SubjectRequest:
        subject_request = selectors.request_for_organization(
            organization_id=self.organization_id, request_id=request_id)
        if subject_request is None or subject_request.app_id != self.app.id:
            raise Http404("Request not found.")
        return subject_request

    def get(self, request, app_id, request_id):
        subject_request = self.get_request(request_id)
        status = status_answer(subject_request, now=timezone.now())
        return render(request, "console/privacy/detail.html", self.context(
            subject_request=subject_request, status=status, found=found_rows(status["found"])))

    def post(self, request, app_id, request_id):
        """Cancel, while it is pending."""
        subject_request = self.get_request(request_id)
        try:
            services.request_cancel(subject_request=subject_request, now=timezone.now())
        except ApiError as error:
            messages.error(request, error.message)
        else:
            messages.success(request, "Cancelled the request.")
        return redirect("console:privacy-request", app_id=self.app.id,
                        request_id=subject_request.id)
