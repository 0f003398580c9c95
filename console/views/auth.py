"""Sign up, log in, log out: the API's accounts services and password rules behind a session
(Django's, with CSRF), and the login throttle the API counts in (same groups, same keys), so
trying passwords on the console or the API draws on one allowance. A person with two-factor
on (or required and not yet enrolled) goes on to a second step (console/views/signin.py)."""

from __future__ import annotations

from django.contrib.auth import login, logout
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import View

from accounts import services
from accounts.login_checks import EnrolmentNeeded, SecondFactorNeeded
from accounts.login_limits import password_login, signup_allowed
from accounts.serializers import LoginInput, SignupInput
from attribution_site import audit_trail
from attribution_site.api.exceptions import ApiError
from console.forms import TEXT, FormProblem, form_data, validated
from console.views.signin import pending_keep

SIGNUP_FIELDS = {"name": TEXT, "email": TEXT, "password": TEXT, "company_name": TEXT}
LOGIN_FIELDS = {"email": TEXT, "password": TEXT}
SESSION_BACKEND = "django.contrib.auth.backends.ModelBackend"
# As the sign-up form labels its fields, in its order (the banner names them so).
SIGNUP_LABELS = {"name": "Your name", "email": "Email", "password": "Password",
                 "company_name": "Company"}


def _next_page(request) -> str:
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(wanted, allowed_hosts={request.get_host()},
                                       require_https=request.is_secure()):
        return wanted
    return reverse("console:home")


class SignupPage(View):
    template = "console/auth/signup.html"

    def get(self, request):
        return render(request, self.template, {"values": {}})

    def post(self, request):
        data = form_data(request.POST, SIGNUP_FIELDS)
        try:
            signup_allowed(request)
            user = services.account_signup(**validated(SignupInput, data))
        except ApiError as error:
            data.pop("password", None)
            return render(request, self.template, {
                "values": data, "problem": FormProblem(error, labels=SIGNUP_LABELS)},
                status=error.status)
        login(request, user, backend=SESSION_BACKEND)
        return redirect("console:home")


class LoginPage(View):
    template = "console/auth/login.html"

    def get(self, request):
        return render(request, self.template, {"values": {}, "next": _next_page(request)})

    def post(self, request):
        data = form_data(request.POST, LOGIN_FIELDS)
        try:
            user = password_login(request, **validated(LoginInput, data))
        except SecondFactorNeeded:
            return self.second_step(request, data, "console:login-code")
        except EnrolmentNeeded as needed:
            return self.second_step(request, data, "console:login-enrol", user=needed.user)
        except ApiError as error:
            return render(request, self.template,
                          {"values": {"email": data.get("email", "")},
                           "problem": FormProblem(error), "next": _next_page(request)},
                          status=error.status)
        audit_trail.login_succeeded(request, user=user)
        login(request, user, backend=SESSION_BACKEND)
        return redirect(_next_page(request))

    @staticmethod
    def second_step(request, data, page: str, *, user=None):
        """The password was right; the person is let in after a code (or an enrolment), on
        the next page (console/views/signin.py)."""
        pending_keep(request, user=user or services.user_by_email(email=data["email"]),
                     next_page=_next_page(request))
        return redirect(page)


class LogoutPage(View):
    def post(self, request):
        logout(request)
        return redirect("console:login")
