"""Audit log (docs/teams.md, "Audit log"): who changed what, logged in, failed to, or used a
token from a further address, recorded at the API's and the console's choke points, read by an
organization's admins, kept AUDIT_RETENTION_DAYS."""

from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "audit"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from attribution_site import audit_trail
        from audit.recording import AuditRecorder

        audit_trail.register(AuditRecorder())
