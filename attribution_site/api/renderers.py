"""Envelope renderer: successful bodies become `{success: true, data: ...}` (spec: Endpoints).

Error bodies are already enveloped by the exception handler and pass through untouched.
"""

from __future__ import annotations

from rest_framework.renderers import JSONRenderer


class EnvelopeJSONRenderer(JSONRenderer):
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        response = (renderer_context or {}).get("response")
        if response is not None and response.status_code >= 400:
            return super().render(data, accepted_media_type, renderer_context)
        return super().render({"success": True, "data": data}, accepted_media_type,
                              renderer_context)
