"""Users and organizations, sign-up and login (spec: Authentication endpoints), and roles and
members (docs/teams.md): who is in an organization and with which role."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"
