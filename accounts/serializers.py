"""Request and response shapes for the authentication and members endpoints."""

from rest_framework import serializers

from accounts.models import User
from attribution_site.api.fields import StrictCharField, StrictEmailField, StrictSerializer


class SignupInput(StrictSerializer):
    email = StrictEmailField()
    password = StrictCharField(max_length=256, trim_whitespace=False)
    name = StrictCharField(max_length=200)
    company_name = StrictCharField(max_length=200)


class LoginInput(StrictSerializer):
    email = StrictEmailField()
    password = StrictCharField(max_length=256, trim_whitespace=False)
    # A current TOTP code or an unused recovery code, when the person has two-factor on
    # (docs/teams.md, "Two-factor"); its shape is checked by the check that reads it.
    otp = StrictCharField(max_length=64, required=False)


class UserOutput(serializers.Serializer):
    id = serializers.UUIDField()
    email = serializers.EmailField()
    name = serializers.CharField()
    role = serializers.ChoiceField(choices=User.Role.values)
    org_id = serializers.UUIDField(source="organization_id", allow_null=True)


class TokenOutput(serializers.Serializer):
    token = serializers.CharField()
    user = UserOutput()


class MemberOutput(serializers.Serializer):
    id = serializers.UUIDField()
    email = serializers.EmailField()
    name = serializers.CharField()
    role = serializers.ChoiceField(choices=User.Role.values)
    joined_at = serializers.DateTimeField(source="date_joined")


class MemberRoleInput(StrictSerializer):
    role = serializers.ChoiceField(choices=User.Role.values)
