"""OpenAPI for the personal access token: a Bearer scheme of its own beside simplejwt's
`jwtAuth`, so the schema says every operation a person calls takes either."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class PersonalAccessTokenScheme(OpenApiAuthenticationExtension):
    target_class = "teams.authentication.PersonalAccessTokenAuthentication"
    name = "personalAccessToken"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer",
                "description": "A personal access token (pat_…), made with POST "
                               "/api/v1/auth/tokens: it acts as its person, with their role."}
