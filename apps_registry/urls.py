from django.urls import path

from apps_registry import views

urlpatterns = [
    path("apps", views.AppListView.as_view(), name="app-list"),
    path("apps/<uuid:app_id>", views.AppDetailView.as_view(), name="app-detail"),
    path("apps/<uuid:app_id>/keys", views.AppKeyListView.as_view(), name="app-keys"),
    path("keys/<str:key_id>", views.KeyDetailView.as_view(), name="key-detail"),
]
