"""OpenAPI description of the SDK's API key authentication (drf-spectacular extension)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "apps_registry.authentication.ApiKeyAuthentication"
    name = "apiKeyAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "header", "name": "X-API-Key",
                "description": "An app's API key (ak_{keyId}_{secret}). /events also accepts "
                               "it as `_api_key` in the body, for beacons."}
