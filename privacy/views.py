"""Data-subject request endpoints (docs/privacy.md, "Erasure and access (OpenDSR)"): OpenDSR's
create, status and cancel for an organization's admins, the list the console reads, the SDK's
forget, and the access document behind its signed link."""

from __future__ import annotations

import base64

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from apps_registry.authentication import require_app
from apps_registry.scoping import OrganizationScopedView
from apps_registry.sdk import SdkView, json_object
from attribution_site.api.exceptions import NotFound
from attribution_site.api.pagination import limit_from_query
from attribution_site.capabilities import ADMINISTER
from delivery.payloads import iso_utc
from privacy import selectors, services
from privacy.models import Source
from privacy.serializers import (
    AccessDocumentResult,
    ForgetInput,
    ForgetResult,
    SubjectRequestCancelled,
    SubjectRequestCreated,
    SubjectRequestInput,
    SubjectRequestList,
    SubjectRequestStatus,
    request_answer,
)

NOT_FOUND = "Request not found."
def _refusal(description: str) -> OpenApiResponse:
    return OpenApiResponse(OpenApiTypes.OBJECT, description=description)


NOT_OURS = _refusal("property_id is no app of the caller's organization.")
USED_ID = _refusal("subject_request_id was used before.")
NOT_PENDING = _refusal("The request is not pending any more.")
NO_DOCUMENT = _refusal("No such document, or its link has expired.")


def base_url(request) -> str:
    return request.build_absolute_uri("/").rstrip("/")


def status_answer(subject_request, *, now) -> dict:
    expires_at = selectors.document_expires_at(subject_request)
    link = selectors.results_url(subject_request) if expires_at and expires_at > now else None
    return request_answer(subject_request, results_url=link,
                          results_expires_at=expires_at if link else None)


class PrivacyAdminView(OrganizationScopedView):
    """Only an organization's admins read or file data-subject requests: they name people."""

    capability = ADMINISTER


class SubjectRequestsView(PrivacyAdminView):
    @extend_schema(operation_id="privacy_requests_create", request=SubjectRequestInput,
                   responses={201: SubjectRequestCreated, 404: NOT_OURS,
                              409: USED_ID})
    def post(self, request):
        raw = request.body  # before DRF reads the stream: OpenDSR answers it base64-encoded
        payload = SubjectRequestInput(data=request.data)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        app = self.get_app(data["property_id"])
        identity = data["subject_identities"][0]
        now = timezone.now()
        encoded = base64.b64encode(raw).decode()
        subject_request, secret = services.request_file(
            app=app, request_id=data["subject_request_id"],
            request_type=data["subject_request_type"], identity_type=identity["identity_type"],
            identity_value=identity["identity_value"], submitted_time=data["submitted_time"],
            status_callback_urls=data.get("status_callback_urls", []),
            api_version=data.get("api_version", "1.0"), encoded_request=encoded,
            base_url=base_url(request), source=Source.API, requested_by=request.user, now=now)
        answer = {
            "controller_id": str(app.organization_id),
            "subject_request_id": str(subject_request.id),
            "received_time": iso_utc(subject_request.received_time),
            "expected_completion_time": iso_utc(subject_request.expected_completion_time),
            "encoded_request": encoded,
            "api_version": subject_request.api_version,
        }
        if secret is not None:
            answer["callback_secret"] = secret
        return Response(answer, status=status.HTTP_201_CREATED)

    @extend_schema(operation_id="privacy_requests_list",
                   parameters=[OpenApiParameter("app_id", str, required=True),
                               OpenApiParameter("limit", int)],
                   responses={200: SubjectRequestList})
    def get(self, request):
        app = self.get_app_from_query("app_id")
        limit = limit_from_query(request.query_params)
        now = timezone.now()
        rows = selectors.requests_for_app(app_id=app.id)[:limit]
        return Response({"requests": [status_answer(row, now=now) for row in rows]})


class SubjectRequestDetailView(PrivacyAdminView):
    def _request(self, request_id):
        subject_request = selectors.request_for_organization(
            organization_id=self.organization_id, request_id=request_id)
        if subject_request is None:
            raise NotFound(NOT_FOUND)
        return subject_request

    @extend_schema(operation_id="privacy_requests_retrieve",
                   responses={200: SubjectRequestStatus})
    def get(self, request, request_id):
        return Response(status_answer(self._request(request_id), now=timezone.now()))

    @extend_schema(operation_id="privacy_requests_cancel",
                   responses={202: SubjectRequestCancelled,
                              409: NOT_PENDING})
    def delete(self, request, request_id):
        now = timezone.now()
        subject_request = services.request_cancel(subject_request=self._request(request_id),
                                                  now=now)
        return Response({"controller_id": str(subject_request.app.organization_id),
                         "subject_request_id": str(subject_request.id),
                         "received_time": iso_utc(now),
                         "api_version": subject_request.api_version},
                        status=status.HTTP_202_ACCEPTED)


class ForgetView(SdkView):
    @extend_schema(operation_id="privacy_forget", request=ForgetInput,
                   responses={201: ForgetResult, 200: ForgetResult})
    def post(self, request):
        payload = ForgetInput(data=json_object(request.data))
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        require_app(request.user, data["app_id"])
        app = services.app_of(app_id=data["app_id"])
        subject_request, created = services.forget_file(app=app, device_id=data["device_id"],
                                                        now=timezone.now())
        return Response({"subject_request_id": str(subject_request.id),
                         "request_status": subject_request.status},
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class AccessDocumentView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(operation_id="privacy_document_retrieve",
                   responses={200: AccessDocumentResult, 404: NO_DOCUMENT})
    def get(self, request, token):
        document = selectors.document_by_token(token=token, now=timezone.now())
        if document is None:
            raise NotFound("No such document, or its link has expired.")
        return Response({"document": document.body,
                         "expires_at": document.expires_at.isoformat()})
