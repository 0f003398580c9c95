from django.urls import path

from analytics import views

urlpatterns = [
    path("analytics/dashboard", views.DashboardView.as_view(), name="analytics-dashboard"),
    path("analytics/sources", views.SourcesView.as_view(), name="analytics-sources"),
    path("analytics/campaigns", views.CampaignsView.as_view(), name="analytics-campaigns"),
    path("analytics/retention", views.RetentionView.as_view(), name="analytics-retention"),
    path("analytics/revenue", views.RevenueView.as_view(), name="analytics-revenue"),
    path("analytics/attribution", views.AttributionView.as_view(),
         name="analytics-attribution"),
    path("analytics/export", views.ExportView.as_view(), name="analytics-export"),
    path("analytics/cost", views.CostView.as_view(), name="analytics-cost"),
    path("analytics/fraud", views.FraudView.as_view(), name="analytics-fraud"),
    path("costs", views.CostImportView.as_view(), name="costs"),
]
