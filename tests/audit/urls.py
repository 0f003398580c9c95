"""A URL configuration for the audit tests: the project's own routes, plus an API view and a
console page written as another helper would write theirs, with no line about auditing, to show
the choke points record them (docs/teams.md, "Audit log")."""

import uuid

from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import path
from rest_framework import status
from rest_framework.response import Response

from apps_registry.scoping import OrganizationScopedView
from attribution_site.api.exceptions import ValidationFailed
from attribution_site.capabilities import ADMINISTER
from attribution_site.urls import urlpatterns as project_urlpatterns
from console.pages import ConsolePage

CREATED = uuid.UUID("00000000-0000-4000-8000-000000000001")


class WidgetListView(OrganizationScopedView):
    capability = ADMINISTER

    def get(self, request):
        return Response({"widgets": []})

    def post(self, request):
        if request.data.get("name") == "refused":
            raise ValidationFailed("Invalid input: name.", {"name": ["Refused."]})
        return Response({"widget": {"id": str(CREATED), "name": request.data.get("name")}},
                        status=status.HTTP_201_CREATED)


class WidgetDetailView(OrganizationScopedView):
    capability = ADMINISTER

    def patch(self, request, widget_id):
        return Response({"widget": {"id": str(widget_id)}})


class WidgetNewPage(ConsolePage):
    capability = ADMINISTER

    def post(self, request):
        if request.POST.get("name") == "refused":
            return HttpResponse("Refused.", status=400)
        if request.POST.get("preview"):
            return HttpResponse("A preview.")
        return redirect("widget-page", widget_id=CREATED)


urlpatterns = [
    path("api/v1/widgets", WidgetListView.as_view(), name="widget-list"),
    path("api/v1/widgets/<uuid:widget_id>", WidgetDetailView.as_view(), name="widget-detail"),
    path("console/widgets/new", WidgetNewPage.as_view(), name="widget-new"),
    path("console/widgets/<uuid:widget_id>", WidgetNewPage.as_view(), name="widget-page"),
    *project_urlpatterns,
]
