"""Routes of the postback and webhook endpoints (spec: Postback endpoints, Webhook endpoints)."""

from django.urls import path

from delivery import views

urlpatterns = [
    path("postbacks", views.PostbackListView.as_view(), name="postback-list"),
    path("postbacks/logs", views.PostbackLogView.as_view(), name="postback-logs"),
    path("postbacks/<uuid:postback_id>", views.PostbackDetailView.as_view(),
         name="postback-detail"),
    path("postbacks/<uuid:postback_id>/test", views.PostbackTestView.as_view(),
         name="postback-test"),
    path("webhooks", views.WebhookListView.as_view(), name="webhook-list"),
    path("webhooks/logs", views.WebhookLogView.as_view(), name="webhook-logs"),
    path("webhooks/<uuid:webhook_id>", views.WebhookDetailView.as_view(), name="webhook-detail"),
    path("webhooks/<uuid:webhook_id>/test", views.WebhookTestView.as_view(),
         name="webhook-test"),
]
