"""Routes of the audit log, mounted under /api/v1/ (docs/teams.md, "Audit log")."""

from django.urls import path

from audit import views

urlpatterns = [
    path("org/audit-log", views.AuditLogView.as_view(), name="audit-log"),
]
