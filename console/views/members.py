"""The organization's members (docs/teams.md, "Members"): who they are and their roles, a role
changed or a person removed, by the same functions as /api/v1/org/members (accounts/members.py),
so the last admin is kept here as there. Admins only."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.shortcuts import redirect, render

from accounts import members
from accounts.models import User
from attribution_site.api.exceptions import ApiError, ValidationFailed
from attribution_site.capabilities import ADMINISTER
from console.pages import ConsolePage


class MembersPage(ConsolePage):
    capability = ADMINISTER
    template = "console/members/list.html"

    def get(self, request):
        return self.page(request)

    def post(self, request):
        """One row's button: `role` (with the new role) or `remove`."""
        action = request.POST.get("action", "")
        try:
            member_id = uuid.UUID(request.POST.get("member_id", ""))
        except ValueError:
            return redirect("console:members")
        try:
            if action == "role":
                member = members.member_role_change(
                    organization_id=self.organization_id, member_id=member_id,
                    role=self.chosen_role(request.POST.get("role", "")))
                messages.success(request, f"{member.email} is now a {member.role}; their "
                                          "sessions and tokens from before have ended.")
            elif action == "remove":
                members.member_remove(organization_id=self.organization_id,
                                      member_id=member_id)
                messages.success(request, "Removed the member: their sessions and tokens "
                                          "have ended.")
        except ApiError as error:
            return self.page(request, problem={"message": error.message}, status=error.status)
        return redirect("console:members")

    @staticmethod
    def chosen_role(value: str) -> str:
        if value not in User.Role.values:
            raise ValidationFailed("Choose one of the roles.")
        return value

    def page(self, request, *, problem=None, status=200):
        return render(request, self.template, {
            "app": None, "apps": self.apps(), "problem": problem, "roles": User.Role.values,
            "members": members.members_of(organization_id=self.organization_id)},
            status=status)
