"""The organization's raw-data destinations (docs/export.md, "Destinations"): the list with each
one's state and a form that adds one, and a destination's page (what it writes where, test it,
run it now, its runs with rows and bytes per topic and their errors, remove it). Checked by the
API's serializers, changed by raw_export.services, read by raw_export.selectors, so another
organization's destination is a 404; like the API, only the roles that configure apps
(admins, developers) see these pages. The secret access key is a password input, never shown again.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render

from attribution_site.api.exceptions import ApiError
from attribution_site.capabilities import CONFIGURE
from console.forms import LIST, TEXT, FormProblem, form_data, validated
from console.pages import ConsolePage
from raw_export import selectors, services
from raw_export.models import DestinationKind, FileFormat
from raw_export.serializers import TOPICS, DestinationCreateInput, complete

FIELDS = {"name": TEXT, "kind": TEXT, "bucket": TEXT, "prefix": TEXT, "endpoint_url": TEXT,
          "region": TEXT, "access_key_id": TEXT, "secret_access_key": TEXT, "path": TEXT,
          "format": TEXT, "topics": LIST, "app_ids": LIST}
LABELS = {"name": "Name", "kind": "Kind", "bucket": "Bucket", "prefix": "Prefix",
          "endpoint_url": "Endpoint URL", "region": "Region", "access_key_id": "Access key ID",
          "secret_access_key": "Secret access key", "path": "Directory", "format": "Format",
          "topics": "Topics", "app_ids": "Apps"}


class DestinationsPage(ConsolePage):
    capability = CONFIGURE

    def context(self, **extra) -> dict:
        return {"app": None, "apps": self.apps(), "kinds": DestinationKind.values,
                "formats": FileFormat.values, "all_topics": TOPICS, **extra}


class DestinationListPage(DestinationsPage):
    template = "console/data_destinations/list.html"

    def get(self, request):
        return self.page(request, values={"kind": "s3", "format": "parquet",
                                          "topics": list(TOPICS)})

    def post(self, request):
        data = form_data(request.POST, FIELDS)
        try:
            clean = complete(dict(validated(DestinationCreateInput, data)), current=None,
                             organization_app_ids={str(app.id) for app in self.apps()})
            destination = services.destination_create(organization_id=self.organization_id,
                                                      fields=clean)
        except ApiError as error:
            data.pop("secret_access_key", None)  # never sent back into the page
            return self.page(request, values=data, problem=FormProblem(error, LABELS),
                             status=error.status)
        messages.success(request, "Added the destination. Test it, then run it or wait for "
                                  "the schedule.")
        return redirect("console:data-destination", destination_id=destination.id)

    def page(self, request, *, values, problem=None, status=200):
        rows = list(selectors.destinations_for_organization(
            organization_id=self.organization_id))
        last_runs = selectors.last_runs(destination_ids=[row.id for row in rows])
        return render(request, self.template, self.context(
            destinations=[(row, last_runs.get(row.id)) for row in rows], values=values,
            problem=problem), status=status)


class DestinationPage(DestinationsPage):
    template = "console/data_destinations/detail.html"

    def get_destination(self, destination_id):
        destination = selectors.destination_for_organization(
            organization_id=self.organization_id, destination_id=destination_id)
        if destination is None:
            raise Http404("Data destination not found.")
        return destination

    def get(self, request, destination_id):
        destination = self.get_destination(destination_id)
        return render(request, self.template, self.context(
            destination=destination,
            runs=selectors.runs_of(destination_id=destination.id, limit=50),
            topic_names=list(destination.topics)))

    def post(self, request, destination_id):
        """One of the page's buttons: test, run now, or delete."""
        destination = self.get_destination(destination_id)
        action = request.POST.get("action")
        if action == "test":
            result = services.destination_test(destination=destination)
            if result.ok:
                messages.success(request, "The test object was written and removed: the "
                                          "destination works.")
            else:
                messages.error(request, f"The test failed: {result.message}")
        elif action == "run":
            services.run_start(destination=destination)
            messages.success(request, "Started a run; its row below shows how it goes.")
        elif action == "delete":
            services.destination_delete(destination=destination)
            messages.success(request, f"Removed {destination.name}. Files already written "
                                      "stay in place.")
            return redirect("console:data-destinations")
        return redirect("console:data-destination", destination_id=destination.id)
