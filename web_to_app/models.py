"""A web app's linked mobile apps, its banner, the banner button's short links, the banner's
events and the web clicks of links (docs/web.md, "The banner", "Web to app").

Rows name apps by foreign key where the app owns them (deleted with it) and by plain id where
they are history that reports read by id, as tracking's rows do.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class LinkedApp(models.Model):
    """One mobile app a web app sends its visitors to."""

    id = models.BigAutoField(primary_key=True)
    web_app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+")
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["web_app", "app"],
                                               name="linked_app_unique")]

    def __str__(self) -> str:
        return f"{self.web_app_id} -> {self.app_id}"


class Banner(models.Model):
    """A web app's smart banner: what it says, where it shows, what its button opens."""

    web_app = models.OneToOneField("apps_registry.App", on_delete=models.CASCADE,
                                   primary_key=True, related_name="+")
    title = models.CharField(max_length=80)
    body = models.CharField(max_length=200, blank=True, default="")
    button = models.CharField(max_length=30)
    icon_url = models.CharField(max_length=2048, null=True, blank=True)
    platforms = models.JSONField(default=list)
    dismiss_days = models.PositiveSmallIntegerField(default=7)
    deep_link_value = models.CharField(max_length=2048, null=True, blank=True)
    carry_visit_source = models.BooleanField(default=False)
    auto_show = models.BooleanField(default=False)
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"banner of {self.web_app_id}"


class BannerLink(models.Model):
    """The short link (links feature) behind the banner's button for one linked app: a link
    belongs to one app, so a banner on iOS and Android has one of each."""

    id = models.BigAutoField(primary_key=True)
    web_app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+")
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE, related_name="+")
    link = models.ForeignKey("links.Link", on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["web_app", "app"],
                                               name="banner_link_unique")]

    def __str__(self) -> str:
        return f"banner link {self.link_id}"


class BannerEventKind(models.TextChoices):
    VIEW = "view"
    CLICK = "click"
    DISMISS = "dismiss"


class BannerEvent(models.Model):
    """A banner shown, clicked or closed in a browser; one row per `event_id` (the script
    may send the same event twice)."""

    id = models.BigAutoField(primary_key=True)
    web_app_id = models.UUIDField()
    event_id = models.UUIDField()
    web_id = models.CharField(max_length=64)
    kind = models.CharField(max_length=16, choices=BannerEventKind.choices)
    occurred_at = models.DateTimeField()
    received_at = models.DateTimeField(default=timezone.now)
    # The web id's source when the event arrived (its visit's attribution), for the report.
    visit_media_source = models.CharField(max_length=255, blank=True, default="")
    visit_campaign = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["web_app_id", "event_id"],
                                               name="banner_event_unique")]
        indexes = [models.Index(fields=["web_app_id", "occurred_at"],
                                name="banner_event_time_idx")]

    def __str__(self) -> str:
        return f"banner {self.kind} {self.event_id}"


class WebClick(models.Model):
    """A click of a short link made from a web page (the banner's button or `appLink`): the
    web journey an app install attributed to that click inherits."""

    click_id = models.UUIDField(primary_key=True)
    app_id = models.UUIDField()  # the link's (mobile) app
    link_id = models.UUIDField()
    web_app_id = models.UUIDField(null=True, blank=True)
    web_id = models.CharField(max_length=64)
    via = models.CharField(max_length=16)  # banner | app_link
    deep_link_value = models.CharField(max_length=2048, blank=True, default="")
    visit_media_source = models.CharField(max_length=255, blank=True, default="")
    visit_campaign = models.CharField(max_length=255, blank=True, default="")
    clicked_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["web_app_id", "clicked_at"], name="web_click_time_idx"),
                   models.Index(fields=["web_id"], name="web_click_web_id_idx")]

    def __str__(self) -> str:
        return f"web click {self.click_id}"
