"""Signing in beyond a password (docs/teams.md, "Single sign-on" and "Two-factor"): an
organization's OpenID Connect provider, TOTP second factors with recovery codes, and the
organization's rules on both. Its checks join accounts' password login at start."""

from django.apps import AppConfig


class SigninConfig(AppConfig):
    name = "signin"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import login_checks
        from signin import sso, two_factor

        login_checks.register(before=sso.password_login_allowed,
                              after=two_factor.second_factor_check)
