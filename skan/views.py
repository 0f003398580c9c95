"""Apple's postback copies arrive here (docs/apple.md, "Setting it up"), at the well-known paths
Apple posts to: `/.well-known/skadnetwork/report-attribution/` under the domain in the app's
`NSAdvertisingAttributionReportEndpoint`, and `/.well-known/appattribution/report-attribution/`
under the one in `AttributionCopyEndpoint`.

No authentication: Apple does not sign the request, it signs the postback, and the service
verifies that. Answers: 200 for a postback counted, a duplicate, or a well-formed postback that
is refused (bad signature, unknown app, development key, unsupported version: sending it again
cannot change the answer, and a device resends anything but a 200 for days); 400 for a body
that is not a postback at all. Either way the body is kept (docs/apple.md).
"""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from attribution_site.api.exceptions import ValidationFailed
from skan import parse, services

# A postback is a few hundred bytes (an AdAttributionKit JWS about 1 KB); 64 KiB is generous
# and keeps a huge body from being read into memory.
MAX_BODY_BYTES = 65_536

RECEIPT = inline_serializer("PostbackReceipt", {
    "status": serializers.ChoiceField(choices=[services.STORED, services.DUPLICATE,
                                               services.REFUSED]),
    "reason": serializers.CharField(help_text="Why a refused postback is not counted: "
                                    "bad_signature, unknown_app, ambiguous_app, "
                                    "development_key, unsupported_version."),
})
MALFORMED = OpenApiResponse(OpenApiTypes.OBJECT, description="The body is not a postback "
                            "(not JSON, a required field missing or of the wrong type, too "
                            "large). It is kept as a refused postback.")


class _PostbackReceiver(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []
    parser_classes: list = []  # the body is read raw, below, so its bytes are what is kept
    framework = ""

    def post(self, request):
        stream = request.stream
        raw = stream.read(MAX_BODY_BYTES + 1) if stream is not None else b""
        outcome = services.postback_receive(
            framework=self.framework, raw_body=raw[:MAX_BODY_BYTES],
            truncated=len(raw) > MAX_BODY_BYTES,
            accept_development=settings.SKAN_ACCEPT_DEVELOPMENT_POSTBACKS)
        if outcome.reason == "malformed":
            raise ValidationFailed(outcome.detail)
        return Response({"status": outcome.status, "reason": outcome.reason})


class SkadnetworkPostbackView(_PostbackReceiver):
    framework = parse.SKADNETWORK

    @extend_schema(
        operation_id="skadnetwork_postback_receive", tags=["apple"], auth=[],
        request={"application/json": OpenApiTypes.OBJECT},
        description="A developer copy of a winning SKAdNetwork postback (versions 2.0 to 4.0), "
        "POSTed by the device. Counted once per transaction id and postback sequence index "
        "after Apple's signature verifies.",
        responses={200: RECEIPT, 400: MALFORMED})
    def post(self, request):
        return super().post(request)


class AdAttributionKitPostbackView(_PostbackReceiver):
    framework = parse.ADATTRIBUTIONKIT

    @extend_schema(
        operation_id="adattributionkit_postback_receive", tags=["apple"], auth=[],
        request={"application/json": OpenApiTypes.OBJECT},
        description="A developer copy of a winning AdAttributionKit postback (`jws-string` and "
        "the unsigned conversion values), POSTed by the device. Counted once per postback "
        "identifier and sequence index after the JWS verifies with Apple's key for its kid.",
        responses={200: RECEIPT, 400: MALFORMED})
    def post(self, request):
        return super().post(request)
