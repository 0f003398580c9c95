"""Sign up, log in, log out: the API's accounts services and password rules behind a session
(Django's, with CSRF), and the login throttle the API counts in (same groups, same keys), so
trying passwords on the console or the API draws on one allowance."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import login, logout
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import View

from accounts import services
from accounts.serializers import LoginInput, SignupInput
from accounts.views import TOO_MANY_LOGINS
from attribution_site.api.client_ip import request_client_ip
from attribution_site.api.exceptions import ApiError
from attribution_site.api.throttling import enforce
from console.forms import TEXT, FormProblem, form_data, validated

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
            enforce(request, group="signup", key=request_client_ip(request),
                    rate=settings.SIGNUP_RATE_LIMIT)
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
            payload = validated(LoginInput, data)
            address = request_client_ip(request)
            enforce(request, group="login-address", key=address,
                    rate=settings.LOGIN_RATE_LIMIT_PER_ADDRESS, message=TOO_MANY_LOGINS)
            enforce(request, group="login", key=f"{payload['email']}|{address}",
                    rate=settings.LOGIN_RATE_LIMIT, message=TOO_MANY_LOGINS)
            user = services.user_authenticate(**payload)
        except ApiError as error:
            return render(request, self.template,
                          {"values": {"email": data.get("email", "")},
                           "problem": FormProblem(error), "next": _next_page(request)},
                          status=error.status)
        login(request, user, backend=SESSION_BACKEND)
        return redirect(_next_page(request))


class LogoutPage(View):
    def post(self, request):
        logout(request)
        return redirect("console:login")
