"""Signing in beyond a password (docs/teams.md, "Single sign-on", "Two-factor"): "Sign in with
SSO" and its callback, the login's second step (a code, or enrolment when the organization
requires two-factor), a person's Two-factor page and the admins' SSO page. They call the same
functions as the API (signin/sso.py, signin/two_factor.py, accounts/login_limits.py)."""

from __future__ import annotations

import time

from django.contrib import messages
from django.contrib.auth import login
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.views import View

from accounts.login_limits import second_factor_login
from accounts.models import User
from attribution_site import audit_trail
from attribution_site.api.exceptions import ApiError
from attribution_site.capabilities import ADMINISTER, READ
from attribution_site.secrets import SecretUnreadable
from console import shown_once
from console.forms import BOOLEAN, LIST, TEXT, FormProblem, form_data, validated
from console.pages import ConsolePage
from signin import oidc, sso, two_factor
from signin.serializers import SsoInput

SESSION_BACKEND = "django.contrib.auth.backends.ModelBackend"
SSO_FLOW = "signin.sso"
PENDING = "signin.pending"  # who gave the right password, waiting for their second step
PENDING_SECONDS = 300
CODES_SLOT = "recovery-codes"
SSO_FIELDS = {"issuer": TEXT, "client_id": TEXT, "client_secret": TEXT,
              "allowed_domains": LIST, "default_role": TEXT, "enforce": BOOLEAN}


def _callback_uri(request) -> str:
    return request.build_absolute_uri(reverse("console:sso-callback"))


def _refused(request, message: str, *, status: int = 403):
    return render(request, "console/signin/refused.html", {"message": message}, status=status)


class SsoStartPage(View):
    """The login page's "Sign in with SSO": the email's domain finds the organization."""

    def post(self, request):
        email = request.POST.get("email", "").strip().lower()
        try:
            validate_email(email)
        except DjangoValidationError:
            return _refused(request, "Type your work email address to sign in with SSO.",
                            status=400)
        try:
            url, kept = sso.sign_in_start(email=email, redirect_uri=_callback_uri(request))
        except oidc.SignInRefused as refusal:
            audit_trail.login_failed(request, email=email, reason=refusal.reason)
            return _refused(request, refusal.message)
        request.session[SSO_FLOW] = {**kept, "email": email}
        # Not a redirect: the console's CSP (form-action 'self') also binds where a form's
        # answer redirects, so the provider is reached by a navigation of its own.
        response = render(request, "console/signin/continue.html", {"url": url})
        add_never_cache_headers(response)
        return response


class SsoCallbackPage(View):
    """Where the provider sends the browser back: checked, then a console session."""

    def get(self, request):
        kept = request.session.pop(SSO_FLOW, None)  # one use, whatever the outcome
        try:
            user = sso.sign_in_finish(
                kept=kept, state=request.GET.get("state", ""), code=request.GET.get("code", ""),
                error=request.GET.get("error", ""), redirect_uri=_callback_uri(request),
                now=timezone.now())
        except (oidc.SignInRefused, ApiError, SecretUnreadable) as refusal:
            reason = getattr(refusal, "reason", "provider_error")
            audit_trail.login_failed(request, email=(kept or {}).get("email", ""),
                                     reason=reason)
            return _refused(request, getattr(refusal, "message", str(refusal)))
        audit_trail.login_succeeded(request, user=user, method="sso")
        login(request, user, backend=SESSION_BACKEND)
        return redirect("console:home")


# --- The login's second step -------------------------------------------------------------------

def pending_keep(request, *, user: User, next_page: str) -> None:
    request.session[PENDING] = {"user_id": str(user.id), "at": time.time(), "next": next_page}


def _pending(request) -> tuple[User | None, str]:
    pending = request.session.get(PENDING) or {}
    if time.time() - pending.get("at", 0) > PENDING_SECONDS:
        return None, ""
    user = User.objects.filter(id=pending.get("user_id"), is_active=True).first()
    return user, pending.get("next") or reverse("console:home")


def _finish_login(request, user: User, next_page: str):
    request.session.pop(PENDING, None)
    audit_trail.login_succeeded(request, user=user)
    login(request, user, backend=SESSION_BACKEND)
    return redirect(next_page)


class LoginCodePage(View):
    """Step two of a password login for a person with two-factor on."""

    template = "console/signin/login_code.html"

    def get(self, request):
        user, _ = _pending(request)
        if user is None:
            return redirect("console:login")
        return render(request, self.template, {})

    def post(self, request):
        user, next_page = _pending(request)
        if user is None:
            messages.error(request, "The login took too long: type your password again.")
            return redirect("console:login")
        try:
            second_factor_login(request, user=user, otp=request.POST.get("otp", "").strip())
        except ApiError as error:
            return render(request, self.template, {"problem": FormProblem(error)},
                          status=error.status)
        return _finish_login(request, user, next_page)


class LoginEnrolPage(View):
    """Step two when the organization requires two-factor and the person has none yet: they
    enrol before they are let in."""

    template = "console/signin/login_enrol.html"

    def get(self, request):
        user, _ = _pending(request)
        if user is None:
            return redirect("console:login")
        try:
            enrolment = (two_factor.pending_enrolment(user=user)
                         or two_factor.totp_enrol(user=user))
        except ApiError:  # enrolled meanwhile (another tab): the password step again
            request.session.pop(PENDING, None)
            return redirect("console:login")
        return self.page(request, enrolment)

    def post(self, request):
        user, next_page = _pending(request)
        if user is None:
            return redirect("console:login")
        try:
            codes = two_factor.totp_confirm(user=user, otp=request.POST.get("otp", "").strip(),
                                            now=timezone.now())
        except ApiError as error:
            return self.page(request, two_factor.pending_enrolment(user=user),
                             problem=FormProblem(error), status=error.status)
        _finish_login(request, user, next_page)
        shown_once.keep(request, slot=CODES_SLOT, secret="\n".join(codes))
        return redirect("console:two-factor-codes")  # before going on: shown only now

    def page(self, request, enrolment, *, problem=None, status=200):
        response = render(request, self.template, {"enrolment": enrolment, "problem": problem},
                          status=status)
        add_never_cache_headers(response)
        return response


# --- Pages behind the login ---------------------------------------------------------------------

class TwoFactorPage(ConsolePage):
    """A person's own two-factor: enrol (QR code, then a code), or switch it off."""

    capability = READ
    template = "console/signin/two_factor.html"

    def get(self, request):
        return self.page(request)

    def post(self, request):
        action = request.POST.get("action", "")
        user = request.user
        try:
            if action == "enrol":
                two_factor.totp_enrol(user=user)
                return redirect("console:two-factor")
            if action == "confirm":
                codes = two_factor.totp_confirm(
                    user=user, otp=request.POST.get("otp", "").strip(), now=timezone.now())
                shown_once.keep(request, slot=CODES_SLOT, secret="\n".join(codes))
                return redirect("console:two-factor-codes")
            if action == "disable":
                two_factor.totp_disable(user=user, otp=request.POST.get("otp", "").strip(),
                                        password=request.POST.get("password", ""),
                                        now=timezone.now())
                messages.success(request, "Two-factor authentication is off.")
                return redirect("console:two-factor")
        except ApiError as error:
            return self.page(request, problem=FormProblem(error), status=error.status)
        return redirect("console:two-factor")

    def page(self, request, *, problem=None, status=200):
        response = render(request, self.template, {
            "app": None, "apps": self.apps(), "problem": problem,
            "status": two_factor.two_factor_status(user=request.user),
            "enrolment": two_factor.pending_enrolment(user=request.user)}, status=status)
        add_never_cache_headers(response)
        return response


class RecoveryCodesPage(ConsolePage):
    """The ten recovery codes, shown once right after two-factor was turned on."""

    capability = READ

    def get(self, request):
        codes = shown_once.take(request, slot=CODES_SLOT)
        response = render(request, "console/signin/recovery_codes.html", {
            "app": None, "apps": self.apps(),
            "codes": codes.split("\n") if codes else None})
        add_never_cache_headers(response)
        return response


class SsoPage(ConsolePage):
    """The organization's single sign-on and its two-factor requirement (admins)."""

    capability = ADMINISTER
    template = "console/signin/sso.html"

    def get(self, request):
        return self.page(request)

    def post(self, request):
        action = request.POST.get("action", "")
        try:
            if action == "save":
                data = form_data(request.POST, SSO_FIELDS)
                if not data.get("client_secret"):
                    data.pop("client_secret", None)
                data["allowed_domains"] = [
                    domain for line in data.get("allowed_domains", [])
                    for domain in line.replace(",", " ").split()]
                sso.sso_configure(organization_id=self.organization_id,
                                  **{"client_secret": None, **validated(SsoInput, data)})
                messages.success(request, "Saved single sign-on.")
            elif action == "remove":
                sso.sso_remove(organization_id=self.organization_id)
                messages.success(request, "Single sign-on is off: passwords work again.")
            elif action == "require":
                required = request.POST.get("required") == "on"
                two_factor.two_factor_require(organization_id=self.organization_id,
                                              required=required)
                messages.success(request, "Two-factor is now required for everyone."
                                 if required else "Two-factor is now up to each person.")
        except ApiError as error:
            values = {k: v for k, v in request.POST.items() if k != "client_secret"}
            return self.page(request, problem=FormProblem(error), values=values,
                             status=error.status)
        return redirect("console:sso")

    def page(self, request, *, problem=None, values=None, status=200):
        current = sso.sso_settings(organization_id=self.organization_id)
        if values is None and current is not None:
            values = {"issuer": current.issuer, "client_id": current.client_id,
                      "allowed_domains": " ".join(current.allowed_domains),
                      "default_role": current.default_role, "enforce": current.enforce}
        return render(request, self.template, {
            "app": None, "apps": self.apps(), "problem": problem, "current": current,
            "values": values or {"default_role": "viewer"},
            "roles": [role.value for role in sso.ROLES_FOR_NEWCOMERS],
            "callback_uri": _callback_uri(request),
            "two_factor_required": two_factor.two_factor_required(
                organization_id=self.organization_id)}, status=status)
