"""What every console page shares: a logged-in user (session, CSRF), the user's organization,
and apps looked up through the API's own scope (apps_registry/scoping.py), so another
organization's app is a 404 page here exactly as it is a 404 there; and the one permission rule
(attribution_site/capabilities.py): a page declares the capability each method needs, and a
person whose role lacks it gets the not-allowed page (403).

`ConsolePage` is also the console's choke point of the audit log
(attribution_site/audit_trail.py): a form post answered with a redirect is recorded as a
person's change, so a new page is audited by being one. The pages follow Post/Redirect/Get: a
change that succeeded redirects, while a post rendered in place changed nothing (a refused
form, a preview of an upload, a row added to a form being edited, a test send's result).

Console views are adapters like the API's: they parse a form or the query string, call the
selector or service the API calls, and render. They hold no rule of their own.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.urls import reverse_lazy
from django.views import View

from apps_registry.scoping import OrganizationScope
from attribution_site import audit_trail, capabilities
from console.rate_editors import may_edit_rates


class CapabilityRequiredPage:
    """A logged-in person whose role lacks the capability the page declares for the request's
    method (`capability`: one, or a dict per method) gets the not-allowed page."""

    capability: str | dict[str, str] | None = None

    def dispatch(self, request, *args, **kwargs):
        needed = capabilities.needed(self.capability, request.method)
        if needed is not None and request.user.is_authenticated and not self.may(needed):
            raise PermissionDenied(self.refusal(needed))
        return super().dispatch(request, *args, **kwargs)

    def may(self, capability: str) -> bool:
        """Whether the person holds `capability`: pages show a form or a notice by it."""
        return capabilities.may(getattr(self.request.user, "role", None), capability)

    def refusal(self, capability: str) -> str:
        """What the not-allowed page says (console/errors.py renders it as text)."""
        return capabilities.refusal(capability)


class AuditedPage:
    """Records a logged-in person's form post that succeeded, that is redirected
    (docs/teams.md, "Audit log")."""

    def dispatch(self, request, *args, **kwargs):
        response = super().dispatch(request, *args, **kwargs)
        if (request.method == "POST" and request.user.is_authenticated
                and 300 <= response.status_code < 400):
            audit_trail.change_made(request, fields=request.POST, answer=response)
        return response


class ConsolePage(AuditedPage, LoginRequiredMixin, CapabilityRequiredPage, OrganizationScope,
                  View):
    login_url = reverse_lazy("console:login")
    redirect_field_name = "next"

    def outsider(self, message: str) -> Exception:
        return Http404(message)

    def not_found(self, message: str) -> Exception:
        return Http404(message)

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
