"""A person's own personal access tokens (docs/teams.md, "Personal access tokens"): the ones
that still work (name, prefix, dates; never the token), a form to make one, delete. Every role:
a token acts as its person, with their role. The same functions as /api/v1/auth/tokens, checked
by the same serializer; the token is shown once, on the page the creating POST redirects to
(console/shown_once.py)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone

from attribution_site.api.exceptions import ApiError
from attribution_site.capabilities import READ
from console import shown_once
from console.forms import INTEGER, TEXT, FormProblem, form_data, validated
from console.pages import ConsolePage
from teams import access_tokens, credentials
from teams.serializers import AccessTokenInput

CREATE_FIELDS = {"name": TEXT, "expires_in_days": INTEGER}


def _slot(token_id) -> str:
    return f"access-token:{token_id}"


class AccessTokensPage(ConsolePage):
    capability = READ
    template = "console/access_tokens/list.html"

    def get(self, request):
        return self.page(request, values={
            "expires_in_days": credentials.ACCESS_TOKEN_DAYS_DEFAULT})

    def post(self, request):
        data = form_data(request.POST, CREATE_FIELDS)
        try:
            issued = access_tokens.access_token_create(
                user=request.user, now=timezone.now(), **validated(AccessTokenInput, data))
        except ApiError as error:
            return self.page(request, values=data, problem=FormProblem(error),
                             status=error.status)
        shown_once.keep(request, slot=_slot(issued.access_token.id), secret=issued.token)
        return redirect("console:access-token-created", token_id=issued.access_token.id)

    def page(self, request, *, values, problem=None, status=200):
        return render(request, self.template, {
            "app": None, "apps": self.apps(), "problem": problem, "values": values,
            "days_min": credentials.ACCESS_TOKEN_DAYS_MIN,
            "days_max": credentials.ACCESS_TOKEN_DAYS_MAX,
            "tokens": access_tokens.access_tokens_of(user=request.user, now=timezone.now())},
            status=status)


class AccessTokenCreatedPage(ConsolePage):
    capability = READ

    def get(self, request, token_id):
        record = access_tokens.access_tokens_of(user=request.user, now=timezone.now()).filter(
            pk=token_id).first()
        if record is None:
            raise Http404(access_tokens.NO_SUCH_TOKEN)
        return shown_once.no_store(render(request, "console/access_tokens/created.html", {
            "app": None, "apps": self.apps(), "record": record,
            "token": shown_once.take(request, slot=_slot(record.id))}))


class AccessTokenDeletePage(ConsolePage):
    capability = READ

    def post(self, request, token_id):
        try:
            access_tokens.access_token_delete(user=request.user, token_id=token_id)
        except ApiError as error:
            raise Http404(error.message) from None
        messages.success(request, "Deleted the token: scripts using it are refused.")
        return redirect("console:access-tokens")
