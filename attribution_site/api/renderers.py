"""DRF's renderer: a successful body goes into the envelope (attribution_site/api/envelope.py).

Error bodies come from the exception handler already enveloped and pass through untouched.
"""

from __future__ import annotations

from rest_framework.renderers import JSONRenderer

from attribution_site.api.envelope import success_body


class EnvelopeJSONRenderer(JSONRenderer):
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        response = (renderer_context or {}).get("response")
        if response is None or response.status_code < 400:
            data = success_body(data)
        return super().render(data, accepted_media_type, renderer_context)
