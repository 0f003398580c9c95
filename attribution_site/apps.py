"""The project package (attribution_site/): settings, root URLs, the Celery app, `/healthz` and
`/readyz`, and the mechanisms every app shares (the API's envelope and errors, domain events,
write batches, prepared statements, process-local caches, the replica, secrets and the
registries' map). An app only so that its management command (`architecture_map`) is found."""

from django.apps import AppConfig


class AttributionSiteConfig(AppConfig):
    name = "attribution_site"
    verbose_name = "Project"
