"""Invitations (docs/teams.md, "Invitations"): the pending ones, an invite form and revoking,
for admins; and the page a link leads to, where the invited person chooses a name and a
password and lands logged in. The same functions as /api/v1/org/invitations and
/api/v1/auth/invitations/accept (teams/), checked by the same serializers.

The accept URL is shown once, on the page the inviting POST redirects to
(console/shown_once.py): it is the invitation's secret.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views import View

from accounts.models import User
from attribution_site import audit_trail
from attribution_site.api.exceptions import ApiError
from attribution_site.capabilities import ADMINISTER
from console import shown_once
from console.forms import TEXT, FormProblem, form_data, validated
from console.pages import ConsolePage
from console.views.auth import SESSION_BACKEND
from teams import invitations, sending
from teams.accept_limits import invitation_accept_limited
from teams.serializers import AcceptInput, InvitationInput

INVITE_FIELDS = {"email": TEXT, "role": TEXT}
ACCEPT_FIELDS = {"token": TEXT, "name": TEXT, "password": TEXT}
ACCEPT_LABELS = {"name": "Your name", "password": "Password"}


def _slot(invitation_id) -> str:
    return f"invitation:{invitation_id}"


class InvitationsPage(ConsolePage):
    capability = ADMINISTER
    template = "console/invitations/list.html"

    def get(self, request):
        return self.page(request, values={"role": User.Role.VIEWER})

    def post(self, request):
        data = form_data(request.POST, INVITE_FIELDS)
        try:
            sent = sending.invitation_send(request, organization_id=self.organization_id,
                                           inviter=request.user,
                                           **validated(InvitationInput, data))
        except ApiError as error:
            return self.page(request, values=data, problem=FormProblem(error),
                             status=error.status)
        shown_once.keep(request, slot=_slot(sent.invitation.id), secret=sent.accept_url)
        if sent.emailed:
            messages.success(request, f"Emailed the invitation to {sent.invitation.email}.")
        elif settings.EMAIL_HOST:
            messages.warning(request, "The invitation email could not be sent (the mail server "
                                      "refused it or did not answer): pass the link on yourself.")
        return redirect("console:invitation-created", invitation_id=sent.invitation.id)

    def page(self, request, *, values, problem=None, status=200):
        return render(request, self.template, {
            "app": None, "apps": self.apps(), "problem": problem, "values": values,
            "roles": User.Role.values,
            "invitations": invitations.invitations_pending(organization_id=self.organization_id,
                                                           now=timezone.now())},
            status=status)


class InvitationCreatedPage(ConsolePage):
    capability = ADMINISTER

    def get(self, request, invitation_id):
        invitation = invitations.invitations_pending(
            organization_id=self.organization_id, now=timezone.now()).filter(
            pk=invitation_id).first()
        if invitation is None:
            raise Http404(invitations.NO_SUCH_INVITATION)
        return shown_once.no_store(render(request, "console/invitations/created.html", {
            "app": None, "apps": self.apps(), "invitation": invitation,
            "accept_url": shown_once.take(request, slot=_slot(invitation.id))}))


class InvitationRevokePage(ConsolePage):
    capability = ADMINISTER

    def post(self, request, invitation_id):
        try:
            invitations.invitation_revoke(organization_id=self.organization_id,
                                          invitation_id=invitation_id)
        except ApiError as error:
            raise Http404(error.message) from None
        messages.success(request, "Revoked the invitation: its link no longer works.")
        return redirect("console:invitations")


class InvitationAcceptPage(View):
    """Open to anyone holding a link: the link's token is what lets them in."""

    template = "console/invitations/accept.html"

    def get(self, request):
        return self.form(request, token=request.GET.get("token", ""), values={})

    def post(self, request):
        data = form_data(request.POST, ACCEPT_FIELDS, keep_empty=("token",))
        try:
            user = invitation_accept_limited(request, **validated(AcceptInput, data))
        except ApiError as error:
            return self.form(request, token=data.get("token", ""),
                             values={"name": data.get("name", "")},
                             problem=FormProblem(error, labels=ACCEPT_LABELS),
                             status=error.status)
        audit_trail.login_succeeded(request, user=user, method=invitations.LOGIN_METHOD)
        login(request, user, backend=SESSION_BACKEND)
        messages.success(request, f"Welcome to {user.organization.name}: you joined as a "
                                  f"{user.role}.")
        return redirect("console:home")

    def form(self, request, *, token, values, problem=None, status=200):
        invitation = invitations.invitation_for_token(token=token, now=timezone.now()) \
            if token else None
        if invitation is None and problem is None:
            status = 400
            problem = {"message": invitations.INVITATION_REFUSED}
        return render(request, self.template, {
            "invitation": invitation, "token": token, "values": values, "problem": problem},
            status=status)
