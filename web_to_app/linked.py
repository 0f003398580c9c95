"""A web app's linked mobile apps (docs/web.md, "Web to app"): the apps its banner and
`appLink` send visitors to. Handed to apps_registry at start (apps_registry/linked_apps.py),
which shows and takes them as the app's `linked_apps`.

Rules: only a web app has linked apps; each is an iOS or Android app of the same organization;
at most MAX_LINKED_APPS, no repeats.
"""

from __future__ import annotations

import uuid

from django.db import transaction

from apps_registry.models import App, Platform
from web_to_app.models import LinkedApp

MAX_LINKED_APPS = 10
MOBILE = (Platform.IOS, Platform.ANDROID)


def linked_apps_of(*, app_id: uuid.UUID) -> list[uuid.UUID]:
    return list(LinkedApp.objects.filter(web_app_id=app_id)
                .order_by("position", "id").values_list("app_id", flat=True))


def linked_apps_platforms(*, web_app_id: uuid.UUID) -> list[tuple[uuid.UUID, str]]:
    """(app id, platform) of each linked app, in their order."""
    rows = (LinkedApp.objects.filter(web_app_id=web_app_id).order_by("position", "id")
            .values_list("app_id", "app__platform"))
    return list(rows)


def web_apps_linking(*, app_id: uuid.UUID) -> list[uuid.UUID]:
    """The web apps that name `app_id` among their linked apps."""
    return list(LinkedApp.objects.filter(app_id=app_id).order_by("web_app_id")
                .values_list("web_app_id", flat=True))


def linked_apps_problem(*, app: App, app_ids: list[uuid.UUID]) -> str | None:
    if app.platform != Platform.WEB:
        return "Only a web app has linked apps."
    if len(app_ids) > MAX_LINKED_APPS:
        return f"At most {MAX_LINKED_APPS} apps."
    if len(set(app_ids)) != len(app_ids):
        return "An app is named twice."
    found = dict(App.objects.filter(id__in=app_ids, organization_id=app.organization_id)
                 .values_list("id", "platform"))
    for app_id in app_ids:
        if app_id not in found:
            return f"{app_id}: no app of this organization has this id."
        if found[app_id] not in MOBILE:
            return f"{app_id}: must be an iOS or Android app."
    return None


def linked_apps_set(*, app: App, app_ids: list[uuid.UUID]) -> None:
    """Replace the web app's linked apps (checked already by linked_apps_problem)."""
    with transaction.atomic():
        LinkedApp.objects.filter(web_app=app).delete()
        LinkedApp.objects.bulk_create([LinkedApp(web_app=app, app_id=app_id, position=index)
                                       for index, app_id in enumerate(app_ids)])


class LinkedAppsOfWebApps:
    """The object apps_registry is handed (apps_registry.linked_apps.LinkedApps)."""

    linked_apps_of = staticmethod(linked_apps_of)
    linked_apps_problem = staticmethod(linked_apps_problem)
    linked_apps_set = staticmethod(linked_apps_set)
