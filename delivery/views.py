"""Postback and webhook endpoints (spec: Postback endpoints, Webhook endpoints), all JWT and
scoped to the caller's organization: another organization's app or configuration is a 404.
Views parse, call one service or selector, and serialize; errors are raised.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from apps_registry.scoping import OrganizationScopedView
from attribution_site.api.exceptions import NotFound
from delivery import selectors, services
from delivery.models import Kind, PostbackConfig, Webhook
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
)

DELETED = inline_serializer("DeliveryConfigDeleted", {"success": serializers.BooleanField()})
APP_QUERY = OpenApiParameter("app_id", str, required=True, description="App UUID")
LOG_QUERY = [
    OpenApiParameter("limit", int, description="1 to 500, default 50"),
    OpenApiParameter("cursor", str, description="next_cursor of the previous page"),
    OpenApiParameter("since", str, description="ISO 8601 date-time, inclusive (started_at)"),
    OpenApiParameter("until", str, description="ISO 8601 date-time, exclusive (started_at)"),
    OpenApiParameter("state", str, description="delivery states, comma-separated: pending, "
                     "sending, succeeded, failed, cancelled"),
]


def _test_result(name: str, log_serializer):
    return inline_serializer(name, {"delivered": serializers.BooleanField(),
                                    "log": log_serializer()})


class DeliveryConfigView(OrganizationScopedView):
    def get_postback(self, postback_id) -> PostbackConfig:
        postback = selectors.postback_for_organization(organization_id=self.organization_id,
                                                       postback_id=postback_id)
        if postback is None:
            raise NotFound("Postback not found.")
        return postback

    def get_webhook(self, webhook_id) -> Webhook:
        webhook = selectors.webhook_for_organization(organization_id=self.organization_id,
                                                     webhook_id=webhook_id)
        if webhook is None:
            raise NotFound("Webhook not found.")
        return webhook


class DeliveryLogView(DeliveryConfigView):
    """A page of the delivery log of one app, newest first, with the cursor of the next."""

    kind: str
    filter_name: str
    output: type[serializers.Serializer]

    def get(self, request):
        app = self.get_app_from_query("app_id")
        query = parse_log_query(request.query_params, filter_name=self.filter_name)
        if query.config_id is not None:
            get_config = self.get_postback if self.kind == Kind.POSTBACK else self.get_webhook
            if get_config(query.config_id).app_id != app.id:
                raise NotFound(f"{self.kind.capitalize()} not found.")
        page = selectors.delivery_log(
            app_id=app.id, kind=self.kind, limit=query.limit, config_id=query.config_id,
            states=query.states, since=query.since, until=query.until, before=query.before)
        return Response({"logs": self.output(page.attempts, many=True).data,
                         "next_cursor": log_cursor(page.next_position)})


def _log_schema(name: str, output, filter_name: str):
    return extend_schema(
        parameters=[APP_QUERY, *LOG_QUERY, OpenApiParameter(filter_name, str)],
        responses={200: inline_serializer(name, {
            "logs": output(many=True),
            "next_cursor": serializers.CharField(allow_null=True)})})


# --- Postbacks -----------------------------------------------------------------------------------

class PostbackListView(DeliveryConfigView):
    @extend_schema(operation_id="postbacks_list", parameters=[APP_QUERY],
                   responses={200: inline_serializer(
                       "PostbackList", {"postbacks": PostbackOutput(many=True)})})
    def get(self, request):
        app = self.get_app_from_query("app_id")
        postbacks = selectors.postbacks_for_app(app_id=app.id)
        return Response({"postbacks": PostbackOutput(postbacks, many=True).data})

    @extend_schema(request=PostbackCreateInput, responses={201: inline_serializer(
        "PostbackCreated", {"postback": PostbackOutput()})})
    def post(self, request):
        payload = PostbackCreateInput(data=request.data)
        payload.is_valid(raise_exception=True)
        fields = dict(payload.validated_data)
        app = self.get_app(fields.pop("app_id"))
        postback = services.postback_create(app=app, **fields)
        return Response({"postback": PostbackOutput(postback).data},
                        status=status.HTTP_201_CREATED)


class PostbackDetailView(DeliveryConfigView):
    @extend_schema(responses={200: inline_serializer("PostbackDetail",
                                                     {"postback": PostbackOutput()})})
    def get(self, request, postback_id):
        return Response({"postback": PostbackOutput(self.get_postback(postback_id)).data})

    @extend_schema(request=PostbackUpdateInput, responses={200: inline_serializer(
        "PostbackUpdated", {"postback": PostbackOutput()})})
    def put(self, request, postback_id):
        postback = self.get_postback(postback_id)
        payload = PostbackUpdateInput(data=request.data)
        payload.is_valid(raise_exception=True)
        postback = services.postback_update(postback=postback, changes=payload.validated_data)
        return Response({"postback": PostbackOutput(postback).data})

    @extend_schema(responses={200: DELETED})
    def delete(self, request, postback_id):
        services.postback_delete(postback=self.get_postback(postback_id))
        return Response({"success": True})


class PostbackTestView(DeliveryConfigView):
    @extend_schema(request=None,
                   responses={200: _test_result("PostbackTestResult", PostbackLogOutput)})
    def post(self, request, postback_id):
        attempt = services.postback_test(postback=self.get_postback(postback_id))
        return Response({"delivered": bool(attempt.succeeded),
                         "log": PostbackLogOutput(attempt).data})


class PostbackLogView(DeliveryLogView):
    kind, filter_name, output = Kind.POSTBACK, "postback_id", PostbackLogOutput

    @_log_schema("PostbackLog", PostbackLogOutput, "postback_id")
    def get(self, request):
        return super().get(request)


# --- Webhooks ------------------------------------------------------------------------------------

class WebhookListView(DeliveryConfigView):
    @extend_schema(operation_id="webhooks_list", parameters=[APP_QUERY],
                   responses={200: inline_serializer(
                       "WebhookList", {"webhooks": WebhookOutput(many=True)})})
    def get(self, request):
        app = self.get_app_from_query("app_id")
        webhooks = selectors.webhooks_for_app(app_id=app.id)
        return Response({"webhooks": WebhookOutput(webhooks, many=True).data})

    @extend_schema(request=WebhookCreateInput, responses={201: inline_serializer(
        "WebhookCreated", {"webhook": WebhookOutput(), "secret": serializers.CharField(),
                           "message": serializers.CharField()})})
    def post(self, request):
        payload = WebhookCreateInput(data=request.data)
        payload.is_valid(raise_exception=True)
        fields = dict(payload.validated_data)
        app = self.get_app(fields.pop("app_id"))
        webhook, secret = services.webhook_create(app=app, **fields)
        return Response({"webhook": WebhookOutput(webhook).data, "secret": secret,
                         "message": services.SECRET_MESSAGE}, status=status.HTTP_201_CREATED)


class WebhookDetailView(DeliveryConfigView):
    @extend_schema(responses={200: inline_serializer("WebhookDetail",
                                                     {"webhook": WebhookOutput()})})
    def get(self, request, webhook_id):
        return Response({"webhook": WebhookOutput(self.get_webhook(webhook_id)).data})

    @extend_schema(request=WebhookUpdateInput, responses={200: inline_serializer(
        "WebhookUpdated", {"webhook": WebhookOutput()})})
    def put(self, request, webhook_id):
        webhook = self.get_webhook(webhook_id)
        payload = WebhookUpdateInput(data=request.data)
        payload.is_valid(raise_exception=True)
        webhook = services.webhook_update(webhook=webhook, changes=payload.validated_data)
        return Response({"webhook": WebhookOutput(webhook).data})

    @extend_schema(responses={200: DELETED})
    def delete(self, request, webhook_id):
        services.webhook_delete(webhook=self.get_webhook(webhook_id))
        return Response({"success": True})


class WebhookTestView(DeliveryConfigView):
    @extend_schema(request=None,
                   responses={200: _test_result("WebhookTestResult", WebhookLogOutput)})
    def post(self, request, webhook_id):
        attempt = services.webhook_test(webhook=self.get_webhook(webhook_id))
        return Response({"delivered": bool(attempt.succeeded),
                         "log": WebhookLogOutput(attempt).data})


class WebhookLogView(DeliveryLogView):
    kind, filter_name, output = Kind.WEBHOOK, "webhook_id", WebhookLogOutput

    @_log_schema("WebhookLog", WebhookLogOutput, "webhook_id")
    def get(self, request):
        return super().get(request)
