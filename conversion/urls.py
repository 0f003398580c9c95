from django.urls import path

from conversion import views

urlpatterns = [
    path("apps/<uuid:app_id>/conversion-schemas", views.ConversionSchemaListView.as_view(),
         name="conversion-schemas"),
    path("apps/<uuid:app_id>/conversion-schemas/<int:version>",
         views.ConversionSchemaDetailView.as_view(), name="conversion-schema-version"),
    path("apps/<uuid:app_id>/conversion-schema", views.SdkConversionSchemaView.as_view(),
         name="conversion-schema-sdk"),
    path("conversion-value", views.ConversionValueView.as_view(), name="conversion-value"),
    path("analytics/skan", views.SkanReportView.as_view(), name="analytics-skan"),
]
