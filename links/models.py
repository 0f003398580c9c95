"""Short links, the domains they live on, and the deep-link opens they bring (docs/links.md).

A link belongs to one app and says where a visitor goes per platform and what the app opens
(`deep_link_value`, `params`). Following it records an ordinary click (tracking's tables, with
the link's id), so attribution, postbacks and reports treat link traffic like any click.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from attribution_site.ids import uuid7


class LinkDomain(models.Model):
    """An organization's own host for its links (`go.example.com`); requests arriving with it
    serve only that organization's links and association files."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("accounts.Organization", on_delete=models.CASCADE,
                                     related_name="link_domains")
    host = models.CharField(max_length=253, unique=True)  # lower-case, no port
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.host


class Link(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="links")
    # None: the service's own host, under /l/{code}.
    domain = models.ForeignKey(LinkDomain, null=True, blank=True, on_delete=models.CASCADE,
                               related_name="links")
    code = models.CharField(max_length=64)
    name = models.CharField(max_length=200, blank=True, default="")
    media_source = models.CharField(max_length=255)
    campaign_id = models.CharField(max_length=255, blank=True, default="")
    adset = models.CharField(max_length=255, blank=True, default="")
    ad = models.CharField(max_length=255, blank=True, default="")
    deep_link_value = models.CharField(max_length=2048, blank=True, default="")
    params = models.JSONField(default=dict, blank=True)
    ios_url = models.CharField(max_length=2048, null=True, blank=True)
    android_url = models.CharField(max_length=2048, null=True, blank=True)
    web_url = models.CharField(max_length=2048, null=True, blank=True)
    # What link previews (chat apps, social networks) show.
    og_title = models.CharField(max_length=200, blank=True, default="")
    og_description = models.CharField(max_length=500, blank=True, default="")
    og_image_url = models.CharField(max_length=2048, blank=True, default="")
    expires_at = models.DateTimeField(null=True, blank=True)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["domain", "code"], name="link_unique_domain_code"),
            # NULLs are distinct in a unique constraint: the service's own host needs its own.
            models.UniqueConstraint(fields=["code"], condition=models.Q(domain__isnull=True),
                                    name="link_unique_default_code"),
        ]
        indexes = [models.Index(fields=["app", "created_at"], name="link_app_time_idx")]

    def __str__(self) -> str:
        return f"link {self.code}"


class LinkOpen(models.Model):
    """An app opened through a link (POST /deeplinks/resolve): a re-engagement touch."""

    id = models.BigAutoField(primary_key=True)
    link = models.ForeignKey(Link, on_delete=models.CASCADE, related_name="opens")
    app_id = models.UUIDField()
    device_id = models.CharField(max_length=64, null=True, blank=True)
    install_id = models.UUIDField(null=True, blank=True)
    opened_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["link", "opened_at"], name="link_open_time_idx")]

    def __str__(self) -> str:
        return f"open of link {self.link_id}"
