"""Postback and webhook endpoints (spec: Postback endpoints, Webhook endpoints), all JWT and
scoped to the caller's organization: another organization's app or configuration is a 404.
The two kinds mirror each other, so each endpoint shape (list and create, detail, test, log) is
one view written once; a kind's base view names its serializers and services, and the schema
of each concrete view is built from those same names. Views parse, call one service or
selector, and serialize; errors are raised.
"""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.response import Response

from apps_registry.models import App
from apps_registry.scoping import OrganizationScopedView
from attribution_site.api.exceptions import NotFound
from attribution_site.capabilities import CONFIGURE, READ
from attribution_site.replica import ReportReads
from delivery import selectors, services
from delivery.models import DeliveryAttempt, Kind, PostbackConfig, Webhook
from delivery.serializers import (
    PostbackCreateInput,
    PostbackLogOutput,
    PostbackOutput,
    PostbackUpdateInput,
    WebhookCreateInput,
    WebhookLogOutput,
    WebhookOutput,
    WebhookUpdateInput,
    log_cursor,
    parse_log_query,
    parse_platform,
)

DELETED = inline_serializer("DeliveryConfigDeleted", {"success": serializers.BooleanField()})
APP_QUERY = OpenApiParameter("app_id", str, required=True, description="App UUID")
LOG_QUERY = [
    OpenApiParameter("limit", int, description="1 to 500, default 50"),
    OpenApiParameter("cursor", str, description="next_cursor of the previous page"),
    OpenApiParameter("since", str, description="ISO 8601 date-time, inclusive (started_at; "
                     "queued_at for a delivery not yet attempted)"),
    OpenApiParameter("until", str, description="ISO 8601 date-time, exclusive (started_at; "
                     "queued_at for a delivery not yet attempted)"),
    OpenApiParameter("state", str, description="delivery states, comma-separated: pending, "
                     "sending, succeeded, failed, cancelled"),
]

# No docstrings on the views and their methods below unless meant for the schema:
# drf-spectacular makes the first one it finds the description of each operation.


class ConfigView(OrganizationScopedView, metaclass=ABCMeta):
    # Reading a configuration too: its URL and secret are the receiver's credentials. The
    # delivery logs (ConfigLogView) are every role's.
    capability = CONFIGURE
    # A Kind's plain value, "postback" or "webhook": it names keys in bodies and the schema
    # (the object; "<kind>s" a list of them; "<kind>_id" the URL argument and the log filter).
    kind: str
    output: type[serializers.Serializer]
    log_output: type[serializers.Serializer]
    create_input: type[serializers.Serializer]
    update_input: type[serializers.Serializer]
    # What create answers besides the object (field classes: the schema lists fields in the
    # order they are made, so they are made after the object's).
    created_extra: dict[str, type[serializers.Field]] = {}
    # What create and update can refuse as a conflict, for the schema.
    conflicts: dict[int, OpenApiResponse] = {}

    def get_config(self, config_id=None) -> PostbackConfig | Webhook:
        """The configuration named by `config_id`, else by the URL: 404 unless the caller's."""
        config = selectors.config_for_organization(
            kind=self.kind, organization_id=self.organization_id,
            config_id=config_id if config_id is not None else self.kwargs[f"{self.kind}_id"])
        if config is None:
            raise self.config_not_found()
        return config

    def config_not_found(self) -> NotFound:
        return NotFound(f"{self.kind.capitalize()} not found.")

    # The services of the kind: their keyword arguments are named after it.
    @abstractmethod
    def create(self, app: App, fields: dict[str, Any]) -> dict[str, Any]: ...

    @abstractmethod
    def update(self, config, changes: dict[str, Any]) -> PostbackConfig | Webhook: ...

    @abstractmethod
    def remove(self, config) -> None: ...

    @abstractmethod
    def send_test(self, config) -> DeliveryAttempt: ...


class PostbackView(ConfigView):
    kind = Kind.POSTBACK.value
    output, log_output = PostbackOutput, PostbackLogOutput
    create_input, update_input = PostbackCreateInput, PostbackUpdateInput
    conflicts = {409: OpenApiResponse(OpenApiTypes.OBJECT, description=(
        "The app has a postback for this media source already."))}

    def create(self, app, fields):
        return {"postback": PostbackOutput(services.postback_create(app=app, **fields)).data}

    def update(self, config, changes):
        return services.postback_update(postback=config, changes=changes)

    def remove(self, config):
        services.postback_delete(postback=config)

    def send_test(self, config):
        return services.postback_test(postback=config)


class WebhookView(ConfigView):
    kind = Kind.WEBHOOK.value
    output, log_output = WebhookOutput, WebhookLogOutput
    create_input, update_input = WebhookCreateInput, WebhookUpdateInput
    created_extra = {"secret": serializers.CharField, "message": serializers.CharField}

    def create(self, app, fields):
        webhook, secret = services.webhook_create(app=app, **fields)
        return {"webhook": WebhookOutput(webhook).data, "secret": secret,
                "message": services.SECRET_MESSAGE}

    def update(self, config, changes):
        return services.webhook_update(webhook=config, changes=changes)

    def remove(self, config):
        services.webhook_delete(webhook=config)

    def send_test(self, config):
        return services.webhook_test(webhook=config)


# --- One view per endpoint shape, for either kind ---------------------------------------------

class ConfigListView(ConfigView):
    def get(self, request):
        app = self.get_app_from_query("app_id")
        configs = selectors.configs_for_app(kind=self.kind, app_id=app.id)
        return Response({f"{self.kind}s": self.output(configs, many=True).data})

    def post(self, request):
        payload = self.create_input(data=request.data)
        payload.is_valid(raise_exception=True)
        fields = dict(payload.validated_data)
        app = self.get_app(fields.pop("app_id"))
        return Response(self.create(app, fields), status=status.HTTP_201_CREATED)


class ConfigDetailView(ConfigView):
    def get(self, request, **url_kwargs):
        return Response({self.kind: self.output(self.get_config()).data})

    def put(self, request, **url_kwargs):
        config = self.get_config()
        payload = self.update_input(data=request.data)
        payload.is_valid(raise_exception=True)
        config = self.update(config, payload.validated_data)
        return Response({self.kind: self.output(config).data})

    def delete(self, request, **url_kwargs):
        self.remove(self.get_config())
        return Response({"success": True})


class ConfigTestView(ConfigView):
    def post(self, request, **url_kwargs):
        attempt = self.send_test(self.get_config())
        return Response({"delivered": bool(attempt.succeeded),
                         "log": self.log_output(attempt).data})


class ConfigLogView(ReportReads, ConfigView):
    """A page of the delivery log of one app, newest first, with the cursor of the next:
    attempts and deliveries not yet attempted from where reports read, the configuration from
    the primary."""

    capability = READ

    def get(self, request):
        app = self.get_app_from_query("app_id")
        query = parse_log_query(request.query_params, filter_name=f"{self.kind}_id")
        # Conversions sent to Google Ads and Meta are postbacks of a kind: their log is the
        # postback log's, named by `platform` (docs/networks.md, "Sending conversions").
        kind = (parse_platform(request.query_params, config_id=query.config_id)
                if self.kind == Kind.POSTBACK else None) or self.kind
        if query.config_id is not None and self.get_config(query.config_id).app_id != app.id:
            raise self.config_not_found()
        page = selectors.delivery_log(
            app_id=app.id, kind=kind, limit=query.limit, config_id=query.config_id,
            states=query.states, since=query.since, until=query.until, before=query.before)
        return Response({"logs": self.log_output(page.entries, many=True).data,
                         "next_cursor": log_cursor(page.next_position)})


# --- Each view's schema, from the names its kind gives -----------------------------------------

def _list_schema(view: type[ConfigView]) -> type[ConfigView]:
    name = view.kind.capitalize()
    return extend_schema_view(
        get=extend_schema(operation_id=f"{view.kind}s_list", parameters=[APP_QUERY],
                          responses={200: inline_serializer(
                              f"{name}List", {f"{view.kind}s": view.output(many=True)})}),
        post=extend_schema(request=view.create_input, responses={201: inline_serializer(
            f"{name}Created", {view.kind: view.output(),
                               **{key: field() for key, field in view.created_extra.items()}}),
            **view.conflicts}),
    )(view)


def _detail_schema(view: type[ConfigView]) -> type[ConfigView]:
    name = view.kind.capitalize()
    return extend_schema_view(
        get=extend_schema(responses={200: inline_serializer(f"{name}Detail",
                                                            {view.kind: view.output()})}),
        put=extend_schema(request=view.update_input, responses={200: inline_serializer(
            f"{name}Updated", {view.kind: view.output()}), **view.conflicts}),
        delete=extend_schema(responses={200: DELETED}),
    )(view)


def _test_schema(view: type[ConfigView]) -> type[ConfigView]:
    return extend_schema_view(post=extend_schema(request=None, responses={
        200: inline_serializer(f"{view.kind.capitalize()}TestResult", {
            "delivered": serializers.BooleanField(), "log": view.log_output()})}))(view)


def _log_schema(view: type[ConfigView]) -> type[ConfigView]:
    return extend_schema_view(get=extend_schema(
        parameters=[APP_QUERY, *LOG_QUERY, OpenApiParameter(f"{view.kind}_id", str),
                    *([OpenApiParameter("platform", str, enum=["google_ads", "meta"],
                                        description="The conversions sent to this platform "
                                                    "instead of the postbacks.")]
                      if view.kind == Kind.POSTBACK else [])],
        responses={200: inline_serializer(f"{view.kind.capitalize()}Log", {
            "logs": view.log_output(many=True),
            "next_cursor": serializers.CharField(allow_null=True)})}))(view)


# --- Postbacks -----------------------------------------------------------------------------------

@_list_schema
class PostbackListView(ConfigListView, PostbackView):
    pass


@_detail_schema
class PostbackDetailView(ConfigDetailView, PostbackView):
    pass


@_test_schema
class PostbackTestView(ConfigTestView, PostbackView):
    pass


@_log_schema
class PostbackLogView(ConfigLogView, PostbackView):
    pass


# --- Webhooks ------------------------------------------------------------------------------------

@_list_schema
class WebhookListView(ConfigListView, WebhookView):
    pass


@_detail_schema
class WebhookDetailView(ConfigDetailView, WebhookView):
    pass


@_test_schema
class WebhookTestView(ConfigTestView, WebhookView):
    pass


@_log_schema
class WebhookLogView(ConfigLogView, WebhookView):
    pass
