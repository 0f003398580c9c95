"""OpenAPI for the access rules (spec: Authentication): the API key scheme, and the
refusals every operation under a rule can answer, documented once here instead of on each view.

An operation authenticated by an API key can be refused with 403 (the app it names is not the
key's app, or the key lacks the permission: `authentication.require_app`); an organization-scoped
operation that names an app or an object (a path argument, an `app_id` parameter or body field)
answers 404 for one that does not exist or belongs to another organization
(`scoping.OrganizationScopedView`); an operation that needs a capability some roles lack
(attribution_site/capabilities.py) answers 403 for them. A view's own description of a
status wins.
"""

from drf_spectacular.contrib.rest_framework_simplejwt import SimpleJWTScheme
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import force_instance

from attribution_site import capabilities
from attribution_site.api.permissions import capability_of

KEY_REFUSED = "The app the request names is not the key's app, or the key lacks the permission."
NOT_IN_ORGANIZATION = "No such object in the caller's organization."


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "apps_registry.authentication.ApiKeyAuthentication"
    name = "apiKeyAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "header", "name": "X-API-Key",
                "description": "An app's API key (ak_{keyId}_{secret}). /events also accepts "
                               "it as `_api_key` in the body, for beacons."}


class BearerTokenScheme(SimpleJWTScheme):
    """simplejwt's scheme (jwtAuth) for our subclass, which drf-spectacular matches by name."""

    target_class = "accounts.authentication.BearerTokenAuthentication"


class AccessRulesAutoSchema(AutoSchema):
    """The project's schema class (SPECTACULAR's DEFAULT_SCHEMA_CLASS)."""

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        if self._by_api_key():
            _refusal(operation, "403", KEY_REFUSED)
        elif self._scoped() and self._names_an_object(operation):
            _refusal(operation, "404", NOT_IN_ORGANIZATION)
        capability = capability_of(self.view, method)
        if capability is not None and not capabilities.held_by_all(capability):
            _refusal(operation, "403", capabilities.refusal(capability))
        return operation

    def _by_api_key(self) -> bool:
        from apps_registry.authentication import ApiKeyAuthentication

        return any(isinstance(authenticator, ApiKeyAuthentication)
                   for authenticator in self.view.get_authenticators())

    def _scoped(self) -> bool:
        from apps_registry.scoping import OrganizationScopedView

        return isinstance(self.view, OrganizationScopedView)

    def _names_an_object(self, operation: dict) -> bool:
        if any(parameter["in"] == "path" or parameter["name"] == "app_id"
               for parameter in operation.get("parameters", [])):
            return True
        if self.method not in ("POST", "PUT", "PATCH"):
            return False
        serializer = force_instance(self.get_request_serializer())
        return "app_id" in getattr(serializer, "fields", {})


def _refusal(operation: dict, status: str, description: str) -> None:
    # The envelope hook (attribution_site/api/schema.py) gives every 4xx the error envelope.
    operation["responses"].setdefault(status, {
        "description": description, "content": {"application/json": {"schema": {}}}})
