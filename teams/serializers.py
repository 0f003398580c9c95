"""Request and answer shapes of the invitations and personal access token endpoints."""

from rest_framework import serializers

from accounts.models import User
from attribution_site.api.fields import (
    StrictCharField,
    StrictEmailField,
    StrictIntegerField,
    StrictSerializer,
)
from teams import credentials


class InvitationInput(StrictSerializer):
    email = StrictEmailField()
    role = serializers.ChoiceField(choices=User.Role.values)


class InvitationOutput(serializers.Serializer):
    id = serializers.UUIDField()
    email = serializers.EmailField()
    role = serializers.ChoiceField(choices=User.Role.values)
    invited_by = serializers.CharField(source="invited_by_email")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


class InvitationCreated(serializers.Serializer):
    invitation = InvitationOutput()
    accept_url = serializers.URLField(help_text="Shown once: the link the invited person opens "
                                                "to set their name and password.")
    emailed = serializers.BooleanField(help_text="Whether the invitation email left (false "
                                                 "without EMAIL_HOST, or when the mail server "
                                                 "refused it).")


class AcceptInput(StrictSerializer):
    token = StrictCharField(max_length=200)
    name = StrictCharField(max_length=200)
    password = StrictCharField(max_length=256, trim_whitespace=False)


class AccessTokenInput(StrictSerializer):
    name = StrictCharField(max_length=100)
    expires_in_days = StrictIntegerField(
        required=False, min_value=credentials.ACCESS_TOKEN_DAYS_MIN,
        max_value=credentials.ACCESS_TOKEN_DAYS_MAX,
        help_text=f"{credentials.ACCESS_TOKEN_DAYS_MIN} to {credentials.ACCESS_TOKEN_DAYS_MAX}; "
                  f"omitted: {credentials.ACCESS_TOKEN_DAYS_DEFAULT}.")


class AccessTokenOutput(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    prefix = serializers.CharField()
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)


class AccessTokenCreated(serializers.Serializer):
    access_token = AccessTokenOutput()
    token = serializers.CharField(help_text="Shown once: send it as `Authorization: Bearer "
                                            "pat_…`.")
