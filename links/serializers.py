"""Request and response shapes of links and link domains (docs/links.md, "The API").

Inputs are strict (attribution_site/api/fields.py): a wrong JSON type or an unknown key is a 400
naming the field. What needs the app (destinations in its URL scheme) or the organization (its
link domains) is checked by links/services.py; shapes and lengths are checked here.
"""

from __future__ import annotations

import base64
import json
import uuid
from datetime import UTC, datetime

from django.conf import settings
from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from analytics.serializers import PeriodQuery
from apps_registry.serializers import DOMAIN
from attribution_site.api.exceptions import ValidationFailed
from attribution_site.api.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictSerializer,
    StrictUUIDField,
    refuse_immutable,
)
from attribution_site.api.pagination import limit_parse
from links import codes
from links.models import Link
from links.selectors import LinkPosition
from links.services import UPDATABLE_LINK_FIELDS
from tracking.click_values import MAX_LENGTH as CLICK_VALUE_LENGTH

MAX_PARAMS = 10
MAX_PARAM_KEY = 64
MAX_PARAM_VALUE = 1024
CURSOR_MESSAGE = "Must be the next_cursor of a previous page."


class ParamsField(serializers.Field):
    """The app's deep-link parameters: an object of at most ten string keys (1 to 64
    characters) and string values (at most 1,024), handed to the app as they are."""

    default_error_messages = {
        "not_an_object": "Must be a JSON object of string values.",
        "too_many": f"At most {MAX_PARAMS} parameters.",
        "bad_key": f"Each key must be 1 to {MAX_PARAM_KEY} characters.",
        "bad_value": "The value of {name!r} must be a string of at most "
                     f"{MAX_PARAM_VALUE} characters.",
    }

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            self.fail("not_an_object")
        if len(data) > MAX_PARAMS:
            self.fail("too_many")
        for key, value in data.items():
            if not 1 <= len(key) <= MAX_PARAM_KEY:
                self.fail("bad_key")
            if not isinstance(value, str) or len(value) > MAX_PARAM_VALUE:
                self.fail("bad_value", name=key)
        return dict(data)

    def to_representation(self, value):
        return value


extend_schema_field({"type": "object", "maxProperties": MAX_PARAMS,
                     "additionalProperties": {"type": "string", "maxLength": MAX_PARAM_VALUE}})(
    ParamsField)


def _text(max_length: int, **kwargs) -> StrictCharField:
    return StrictCharField(max_length=max_length, required=False, allow_blank=True, **kwargs)


def _destination() -> StrictCharField:
    # Shape only here; whether the URL may be used is links/destinations.py's rule, applied
    # with the app's URL scheme by the service.
    return StrictCharField(max_length=2048, required=False, allow_null=True)


class LinkFields(StrictSerializer):
    """The fields a link's owner may set on create and change on update."""

    name = _text(200)
    media_source = StrictCharField(max_length=CLICK_VALUE_LENGTH)
    campaign_id = _text(CLICK_VALUE_LENGTH)
    adset = _text(CLICK_VALUE_LENGTH)
    ad = _text(CLICK_VALUE_LENGTH)
    deep_link_value = _text(2048)
    params = ParamsField(required=False)
    ios_url = _destination()
    android_url = _destination()
    web_url = _destination()
    og_title = _text(200)
    og_description = _text(500)
    og_image_url = _text(2048)
    expires_at = serializers.DateTimeField(required=False, allow_null=True)
    active = StrictBooleanField(required=False)

    def validate_expires_at(self, value):
        if value is not None and value <= timezone.now():
            raise serializers.ValidationError("Must be in the future.")
        return value


class LinkCreateInput(LinkFields):
    app_id = StrictUUIDField(message="Must be a UUID.")
    code = StrictCharField(required=False, trim_whitespace=False, max_length=codes.MAX_LENGTH,
                           help_text="Generated (7 characters) when absent.")
    domain = StrictCharField(required=False, allow_null=True, max_length=253, help_text=(
        "Host of one of the organization's link domains; absent or null: this service's "
        "own host, under /l/{code}."))

    def validate_code(self, value: str) -> str:
        problem = codes.code_problem(value)
        if problem is not None:
            raise serializers.ValidationError(problem)
        return value

    def validate_domain(self, value: str | None) -> str | None:
        return value.strip().lower().rstrip(".") if value else None


class LinkUpdateInput(LinkFields):
    """Any subset of the link's fields; its app, code and domain never change."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["media_source"].required = False

    def to_internal_value(self, data):
        refuse_immutable(data, immutable=("app_id", "code", "domain"), message=(
            "Cannot be changed after creation (the short URL may be printed and shared); "
            f"only {', '.join(UPDATABLE_LINK_FIELDS)} can be updated."))
        return super().to_internal_value(data)


class LinkOutput(serializers.Serializer):
    """A link as the API shows it. `short_url` needs `own_origin` in the context (the scheme
    and host of the service's own links: LINKS_BASE_URL, else the request's)."""

    id = serializers.UUIDField()
    app_id = serializers.UUIDField()
    domain = serializers.SerializerMethodField()
    code = serializers.CharField()
    short_url = serializers.SerializerMethodField()
    name = serializers.CharField()
    media_source = serializers.CharField()
    campaign_id = serializers.CharField()
    adset = serializers.CharField()
    ad = serializers.CharField()
    deep_link_value = serializers.CharField()
    params = ParamsField()
    ios_url = serializers.CharField(allow_null=True)
    android_url = serializers.CharField(allow_null=True)
    web_url = serializers.CharField(allow_null=True)
    og_title = serializers.CharField()
    og_description = serializers.CharField()
    og_image_url = serializers.CharField()
    expires_at = serializers.DateTimeField(allow_null=True)
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()

    @extend_schema_field({"type": "string", "nullable": True,
                          "description": "The custom link domain's host; null: this service."})
    def get_domain(self, link: Link) -> str | None:
        return link.domain.host if link.domain_id else None

    @extend_schema_field({"type": "string", "format": "uri"})
    def get_short_url(self, link: Link) -> str:
        return link_short_url(link, own_origin=self.context["own_origin"])


def own_origin(request) -> str:
    """Scheme and host of links on the service's own host: LINKS_BASE_URL when set, else the
    request's own (raises DisallowedHost for a host Django refuses)."""
    return settings.LINKS_BASE_URL or f"{request.scheme}://{request.get_host()}"


def link_short_url(link: Link, *, own_origin: str) -> str:
    return codes.short_url(code=link.code, domain_host=link.domain.host if link.domain_id else None,
                           own_origin=own_origin)


# --- The list's paging ---------------------------------------------------------------------

def list_cursor(link: Link | None) -> str | None:
    """Opaque to clients: the position of the last link of a page, as URL-safe base64."""
    if link is None:
        return None
    text = json.dumps([link.created_at.astimezone(UTC).isoformat(), str(link.id)],
                      separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def parse_list_query(params) -> tuple[int, LinkPosition | None]:
    """`limit` (default 50, 1 to 500) and `cursor`, or a 400 naming each bad one."""
    errors: dict[str, list[str]] = {}
    limit = 0
    try:
        limit = limit_parse(params.get("limit"))
    except ValueError as exc:
        errors["limit"] = [str(exc)]
    after = None
    if params.get("cursor"):
        try:
            after = _position(params["cursor"])
        except ValueError:
            errors["cursor"] = [CURSOR_MESSAGE]
    if errors:
        raise ValidationFailed("Invalid input: " + ", ".join(errors) + ".", errors)
    return limit, after


def _position(cursor: str) -> LinkPosition:
    text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    try:
        created_at, link_id = json.loads(text)
        moment = datetime.fromisoformat(created_at)
        position = LinkPosition(created_at=moment, id=uuid.UUID(link_id))
    except (TypeError, AttributeError) as exc:
        raise ValueError(CURSOR_MESSAGE) from exc
    if moment.tzinfo is None:
        raise ValueError(CURSOR_MESSAGE)
    return position


# --- Link domains --------------------------------------------------------------------------

class LinkDomainCreateInput(StrictSerializer):
    host = StrictCharField(max_length=253, help_text=(
        "A host name such as go.example.com: no scheme, port or path. Point it at this "
        "service behind TLS (docs/links.md)."))

    def validate_host(self, value: str) -> str:
        host = value.strip().lower().rstrip(".")
        if "://" in host or "/" in host or ":" in host:
            raise serializers.ValidationError(
                "Must be a bare host name such as go.example.com: no scheme, port or path.")
        if not DOMAIN.match(host):
            raise serializers.ValidationError("Must be a host name such as go.example.com.")
        return host


class LinkDomainOutput(serializers.Serializer):
    id = serializers.UUIDField()
    host = serializers.CharField()
    link_count = serializers.IntegerField(default=0)
    created_at = serializers.DateTimeField()


# --- The per-link report -------------------------------------------------------------------

class LinkReportQuery(PeriodQuery):
    """The analytics endpoints' date rules (UTC days, start..end inclusive, at most
    ANALYTICS_MAX_RANGE_DAYS); the app is the link's."""

    app_id = None


class LinkReportFiguresOutput(serializers.Serializer):
    clicks = serializers.IntegerField()
    installs = serializers.IntegerField()
    deep_link_opens = serializers.IntegerField()


class LinkReportDayOutput(serializers.Serializer):
    date = serializers.DateField()
    clicks = serializers.IntegerField()
    installs = serializers.IntegerField()
    deep_link_opens = serializers.IntegerField()


class LinkReportOutput(serializers.Serializer):
    link_id = serializers.UUIDField()
    start_date = serializers.DateField()
    end_date = serializers.DateField()
    timezone = serializers.CharField()
    totals = LinkReportFiguresOutput()
    days = LinkReportDayOutput(many=True)
