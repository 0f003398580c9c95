"""OpenAPI: wrap every documented body in the spec's envelope.

Views describe their `data` payloads; this hook rewrites each 2xx JSON schema into
`{success: true, data: <payload>}` and adds the error envelope for every 4xx/5xx, so the schema
at /api/v1/schema/ matches the wire exactly. Every JSON operation documents the errors any
request can meet (400, 429, 500, and 401 where it takes credentials).
"""

from __future__ import annotations

from attribution_site.api.exceptions import ErrorCode

ERROR_COMPONENT = {
    "type": "object",
    "required": ["success", "error"],
    "properties": {
        "success": {"type": "boolean", "enum": [False]},
        "error": {
            "type": "object",
            "required": ["code", "message", "details"],
            "properties": {
                "code": {"type": "string", "enum": [code.name for code in ErrorCode]},
                "message": {"type": "string"},
                "details": {"type": "object", "additionalProperties": True,
                            "description": "VALIDATION_ERROR: {field: [messages]}"},
            },
        },
    },
}

_DEFAULT_ERRORS = {"400": "Validation error", "401": "Unauthorized", "429": "Rate limited",
                   "500": "Internal error"}


def envelope_postprocessing_hook(result, generator, request, public):
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components["ErrorEnvelope"] = ERROR_COMPONENT
    error_ref = {"$ref": "#/components/schemas/ErrorEnvelope"}
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            for status, response in responses.items():
                content = response.get("content", {})
                if "application/json" not in content:
                    continue
                if str(status).startswith(("2", "3")):
                    payload = content["application/json"].get("schema", {})
                    content["application/json"]["schema"] = {
                        "type": "object",
                        "required": ["success", "data"],
                        "properties": {"success": {"type": "boolean", "enum": [True]},
                                       "data": payload},
                    }
                else:
                    content["application/json"]["schema"] = error_ref
            if not _answers_json(responses):
                continue  # the click redirector: a redirect whatever happens, no envelope
            for status, description in _DEFAULT_ERRORS.items():
                if status == "401" and not operation.get("security"):
                    continue  # no credentials to refuse; login documents its own 401
                responses.setdefault(status, {
                    "description": description,
                    "content": {"application/json": {"schema": error_ref}},
                })
    return result


def _answers_json(responses: dict) -> bool:
    return any("application/json" in response.get("content", {})
               for response in responses.values())
