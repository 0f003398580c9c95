"""What every console page shares: a logged-in user (session, CSRF), the user's organization,
and apps looked up through the same selector the API's `OrganizationScopedView` uses, so
another organization's app is a 404 page here exactly as it is a 404 there.

Console views are adapters like the API's: they parse a form or the query string, call the
selector or service the API calls, and render. They hold no rule of their own.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import Http404
from django.urls import reverse_lazy
from django.views import View

from apps_registry import selectors as app_selectors
from apps_registry.models import App
from console.rate_editors import may_edit_rates


class ConsolePage(LoginRequiredMixin, View):
    login_url = reverse_lazy("console:login")
    redirect_field_name = "next"

    @property
    def organization_id(self) -> uuid.UUID:
        organization_id = getattr(self.request.user, "organization_id", None)
        if organization_id is None:
            raise Http404("This account does not belong to an organization.")
        return organization_id

    def get_app(self, app_id) -> App:
        app = app_selectors.app_for_organization(organization_id=self.organization_id,
                                                 app_id=app_id)
        if app is None:
            raise Http404("App not found.")
        return app

    def apps(self):
        return app_selectors.apps_for_organization(organization_id=self.organization_id)

    @property
    def may_edit_rates(self) -> bool:
        """Whether this user may change the instance-wide exchange rates (console/rate_editors.py);
        report pages link their "no rate" notice to the rates page for such a user."""
        user = self.request.user
        return may_edit_rates(editors=settings.CURRENCY_RATES_EDITORS,
                              role=getattr(user, "role", ""), is_staff=user.is_staff)


class AppPage(ConsolePage):
    """A page about one app: `self.app` is set before the handler runs, and every template
    gets it (and the organization's other apps, for the switcher) as `app` and `apps`."""

    section = ""  # which entry of the app's navigation is current

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return self.handle_no_permission()
        self.app = self.get_app(kwargs["app_id"])
        return super().dispatch(request, *args, **kwargs)

    def context(self, **extra) -> dict:
        return {"app": self.app, "apps": self.apps(), "section": self.section,
                "may_edit_rates": self.may_edit_rates, **extra}
