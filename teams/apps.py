"""Teams (docs/teams.md, "Invitations", "Personal access tokens"): invitations to an
organization, accepted once, and each person's personal access tokens for scripts, acting with
their current role."""

from django.apps import AppConfig


class TeamsConfig(AppConfig):
    name = "teams"
    verbose_name = "Teams: invitations and personal access tokens"

    def ready(self) -> None:
        # drf-spectacular finds an authentication scheme's extension once it is imported.
        from teams import schema  # noqa: F401
