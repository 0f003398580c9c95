"""Request and answer shapes of the banner settings (docs/web.md, "The banner")."""

from __future__ import annotations

from rest_framework import serializers

from attribution_site.api.fields import (
    HttpUrlField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictListField,
    StrictSerializer,
)
from web_to_app import banner_rules

MAX_DISMISS_DAYS = 365


class BannerBody(StrictSerializer):
    """PUT replaces the whole banner: a field left out takes its default."""

    title = StrictCharField(max_length=80)
    body = StrictCharField(max_length=200, required=False, allow_blank=True, default="")
    button = StrictCharField(max_length=30)
    icon_url = HttpUrlField(schemes=("https",), required=False, allow_null=True, default=None)
    platforms = StrictListField(
        child=serializers.ChoiceField(choices=banner_rules.PLATFORMS, error_messages={
            "invalid_choice": "Must be one of ios, android, desktop."}),
        required=False, allow_empty=False, default=lambda: ["ios", "android"],
        error_messages={"empty": "Name at least one of ios, android, desktop."})
    dismiss_days = StrictIntegerField(required=False, default=7, min_value=0,
                                      max_value=MAX_DISMISS_DAYS)
    deep_link_value = StrictCharField(required=False, allow_null=True, default=None,
                                      max_length=banner_rules.MAX_TEMPLATE_LENGTH,
                                      help_text="A template: {path} is the page's path.")
    carry_visit_source = StrictBooleanField(required=False, default=False)
    auto_show = StrictBooleanField(required=False, default=False)

    def validate_platforms(self, value):
        if len(set(value)) != len(value):
            raise serializers.ValidationError("A platform is named twice.")
        return [p for p in banner_rules.PLATFORMS if p in value]

    def validate_deep_link_value(self, value):
        if not value:
            return None
        problem = banner_rules.template_problem(value)
        if problem:
            raise serializers.ValidationError(problem)
        return value


class BannerLinkOutput(serializers.Serializer):
    app_id = serializers.UUIDField()
    platform = serializers.CharField()
    link_id = serializers.UUIDField()
    url = serializers.CharField(help_text="The short link behind the button on this app's "
                                          "devices.")


class BannerOutput(serializers.Serializer):
    title = serializers.CharField()
    body = serializers.CharField()
    button = serializers.CharField()
    icon_url = serializers.CharField(allow_null=True)
    platforms = serializers.ListField(child=serializers.CharField())
    dismiss_days = serializers.IntegerField()
    deep_link_value = serializers.CharField(allow_null=True)
    carry_visit_source = serializers.BooleanField()
    auto_show = serializers.BooleanField()
    updated_at = serializers.DateTimeField()
    links = BannerLinkOutput(many=True)
