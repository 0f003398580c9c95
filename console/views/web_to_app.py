"""A web app's banner editor and its web-to-app report (docs/web.md, "The banner", "Web to
app"; docs/console.md). The editor takes the same fields as PUT /api/v1/apps/{id}/banner,
checked by the API's serializers (AppUpdateInput for the linked apps, BannerBody) and saved by
the same services, and shows a live preview drawn by console/static/console/banner.js from the
form's fields (as text: the preview never parses what was typed as markup). The report page
shows GET /api/v1/analytics/web-to-app's body.
"""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render

from apps_registry import services as app_services
from apps_registry.models import Platform
from apps_registry.serializers import AppUpdateInput
from attribution_site import capabilities
from attribution_site.api.exceptions import ApiError
from attribution_site.capabilities import CONFIGURE, READ
from console.forms import BOOLEAN, INTEGER, LIST, NULLABLE, TEXT, FormProblem, form_data, validated
from console.pages import AppPage
from console.security import POLICY
from console.views.fraud_settings import errors_by_field
from web_to_app import banner_rules, linked, selectors, services
from web_to_app.report_views import WebToAppQuery, web_to_app_report
from web_to_app.serializers import BannerBody
from web_to_app.views import banner_answer

FIELDS = {"title": TEXT, "body": TEXT, "button": TEXT, "icon_url": NULLABLE, "platforms": LIST,
          "dismiss_days": INTEGER, "deep_link_value": NULLABLE, "carry_visit_source": BOOLEAN,
          "auto_show": BOOLEAN}
LABELS = {"linked_apps": "Linked apps", "title": "Title", "body": "Text", "button": "Button",
          "icon_url": "Icon URL", "platforms": "Shown on", "dismiss_days": "Days away after close",
          "deep_link_value": "Deep link", "carry_visit_source": "Credit the visit's source",
          "auto_show": "Show by itself"}
DEFAULTS = {"title": "", "body": "", "button": "Open", "icon_url": "",
            "platforms": ["ios", "android"], "dismiss_days": 7, "deep_link_value": "",
            "carry_visit_source": False, "auto_show": False, "linked_apps": []}
# The preview loads the icon from its own host (https only, as the API requires).
PAGE_POLICY_IMAGES = "img-src 'self' data: https:"


class WebAppPage(AppPage):
    def get_app(self, app_id):
        app = super().get_app(app_id)
        if app.platform != Platform.WEB:
            raise Http404("Only a web app has a banner.")
        return app


class BannerPage(WebAppPage):
    section = "banner"
    template = "console/web_to_app/banner.html"

    capability = {"GET": READ, "POST": CONFIGURE}

    def get(self, request, app_id):
        stored = banner_answer(request, self.app)
        values = {**DEFAULTS, **(stored or {})}
        values["linked_apps"] = [str(i) for i in linked.linked_apps_of(app_id=self.app.id)]
        return self.page(request, values=values, links=(stored or {}).get("links", []))

    def post(self, request, app_id):
        data = form_data(request.POST, FIELDS)
        chosen = [value for value in request.POST.getlist("linked_apps") if value]
        try:
            with transaction.atomic():
                app_changes = validated(AppUpdateInput, {"linked_apps": chosen},
                                        instance=self.app)
                app_services.app_update(app=self.app, changes=app_changes)
                services.banner_put(web_app=self.app, fields=dict(validated(BannerBody, data)))
        except ApiError as error:
            typed = {name: request.POST.get(name, "") for name in FIELDS}
            typed.update(platforms=request.POST.getlist("platforms"), linked_apps=chosen,
                         carry_visit_source="carry_visit_source" in request.POST,
                         auto_show="auto_show" in request.POST)
            return self.page(request, values=typed, links=[],
                             problem=FormProblem(error, LABELS), status=error.status)
        messages.success(request, "Saved the banner: pages with the script show it from now on.")
        return redirect("console:banner", app_id=self.app.id)

    def page(self, request, *, values: dict, links: list, problem: FormProblem | None = None,
             status: int = 200):
        mobile = [app for app in self.apps() if app.platform in linked.MOBILE]
        response = render(request, self.template, self.context(
            values=values, errors=errors_by_field(problem), problem=problem, links=links,
            may_change=self.may(CONFIGURE), refusal=capabilities.refusal(CONFIGURE),
            mobile_apps=mobile, platforms=banner_rules.PLATFORMS),
            status=status)
        response["Content-Security-Policy"] = _policy_with_images()
        return response


def _policy_with_images() -> str:
    return POLICY.replace("img-src 'self' data:", PAGE_POLICY_IMAGES)


class WebToAppReportPage(WebAppPage):
    capability = READ
    section = "web-to-app"
    template = "console/web_to_app/report.html"

    def get(self, request, app_id):
        params = WebToAppQuery(data={"app_id": str(self.app.id),
                                     **{k: v for k, v in request.GET.items()
                                        if k in ("start_date", "end_date") and v}})
        problem = None
        if not params.is_valid():
            problem = FormProblem(ApiError("Please check the dates.", params.errors))
            params = WebToAppQuery(data={"app_id": str(self.app.id)})
            params.is_valid(raise_exception=True)
        body = web_to_app_report(web_app_id=self.app.id,
                                 start=params.validated_data["start_date"],
                                 end=params.validated_data["end_date"])
        banner = selectors.banner_of(web_app_id=self.app.id)
        return render(request, self.template, self.context(
            report=body, problem=problem, has_banner=banner is not None))
