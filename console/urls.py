"""Routes of the console, mounted under /console/ (namespace `console`); the pages are in
console/views/, one module per area."""

from django.urls import path, register_converter

from console.views import (
    access_tokens,
    apps,
    audit,
    auth,
    conversion,
    cost_report,
    costs,
    data_destinations,
    deliveries,
    docs,
    fraud_report,
    fraud_settings,
    installs,
    integrations,
    invitations,
    keys,
    link_builder,
    links,
    members,
    privacy,
    rates,
    reports,
    sdk,
    signin,
    skan_mappings,
    skan_report,
    web_to_app,
)

app_name = "console"


class DeliveryKindConverter:
    """`postbacks` and `webhooks` pages share their views; the kind is part of the path."""

    regex = "postback|webhook"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(DeliveryKindConverter, "delivery_kind")


def _delivery_path(route: str, view, name: str):
    return path(f"apps/<uuid:app_id>/<delivery_kind:kind>s/{route}", view.as_view(), name=name)


urlpatterns = [
    path("signup", auth.SignupPage.as_view(), name="signup"),
    path("login", auth.LoginPage.as_view(), name="login"),
    path("logout", auth.LogoutPage.as_view(), name="logout"),
    path("login/code", signin.LoginCodePage.as_view(), name="login-code"),
    path("login/enrol", signin.LoginEnrolPage.as_view(), name="login-enrol"),
    path("sso/start", signin.SsoStartPage.as_view(), name="sso-start"),
    path("sso/callback", signin.SsoCallbackPage.as_view(), name="sso-callback"),
    path("sso", signin.SsoPage.as_view(), name="sso"),
    path("two-factor", signin.TwoFactorPage.as_view(), name="two-factor"),
    path("two-factor/codes", signin.RecoveryCodesPage.as_view(), name="two-factor-codes"),
    path("", apps.AppListPage.as_view(), name="home"),
    path("members", members.MembersPage.as_view(), name="members"),
    path("invitations", invitations.InvitationsPage.as_view(), name="invitations"),
    path("invitations/accept", invitations.InvitationAcceptPage.as_view(),
         name="invitation-accept"),
    path("invitations/<uuid:invitation_id>/created", invitations.InvitationCreatedPage.as_view(),
         name="invitation-created"),
    path("invitations/<uuid:invitation_id>/revoke", invitations.InvitationRevokePage.as_view(),
         name="invitation-revoke"),
    path("access-tokens", access_tokens.AccessTokensPage.as_view(), name="access-tokens"),
    path("access-tokens/<uuid:token_id>/created", access_tokens.AccessTokenCreatedPage.as_view(),
         name="access-token-created"),
    path("access-tokens/<uuid:token_id>/delete", access_tokens.AccessTokenDeletePage.as_view(),
         name="access-token-delete"),
    path("apps/new", apps.AppCreatePage.as_view(), name="app-new"),
    path("apps/<uuid:app_id>/settings", apps.AppEditPage.as_view(), name="app-edit"),
    path("apps/<uuid:app_id>/delete", apps.AppDeletePage.as_view(), name="app-delete"),
    path("apps/<uuid:app_id>/settings/integrations", integrations.IntegrationsPage.as_view(),
         name="integrations"),
    path("apps/<uuid:app_id>/", reports.OverviewPage.as_view(), name="overview"),
    path("apps/<uuid:app_id>/sources", reports.SourcesPage.as_view(), name="sources"),
    path("apps/<uuid:app_id>/campaigns", reports.CampaignsPage.as_view(), name="campaigns"),
    path("apps/<uuid:app_id>/cohorts", reports.CohortsPage.as_view(), name="cohorts"),
    path("apps/<uuid:app_id>/revenue", reports.RevenuePage.as_view(), name="revenue"),
    path("apps/<uuid:app_id>/cost", cost_report.CostPage.as_view(), name="cost-report"),
    path("apps/<uuid:app_id>/exports", reports.ExportsPage.as_view(), name="exports"),
    path("apps/<uuid:app_id>/fraud", fraud_report.FraudPage.as_view(), name="fraud-report"),
    path("apps/<uuid:app_id>/fraud/settings", fraud_settings.FraudSettingsPage.as_view(),
         name="fraud-settings"),
    path("apps/<uuid:app_id>/exports/<str:kind>.csv", reports.ExportDownload.as_view(),
         name="export-download"),
    path("apps/<uuid:app_id>/installs", installs.InstallListPage.as_view(), name="installs"),
    path("apps/<uuid:app_id>/installs/<uuid:install_id>", installs.InstallDetailPage.as_view(),
         name="install-detail"),
    path("apps/<uuid:app_id>/keys", keys.KeyListPage.as_view(), name="keys"),
    path("apps/<uuid:app_id>/keys/new", keys.KeyCreatePage.as_view(), name="key-new"),
    path("apps/<uuid:app_id>/keys/<str:key_id>/created", keys.KeyCreatedPage.as_view(),
         name="key-created"),
    path("apps/<uuid:app_id>/keys/<str:key_id>/revoke", keys.KeyRevokePage.as_view(),
         name="key-revoke"),
    path("apps/<uuid:app_id>/sdk", sdk.SdkSetupPage.as_view(), name="sdk"),
    path("apps/<uuid:app_id>/banner", web_to_app.BannerPage.as_view(), name="banner"),
    path("apps/<uuid:app_id>/web-to-app", web_to_app.WebToAppReportPage.as_view(),
         name="web-to-app"),
    path("apps/<uuid:app_id>/deliveries", deliveries.DeliveriesPage.as_view(),
         name="deliveries"),
    path("apps/<uuid:app_id>/deliveries/<str:platform>/log",
         deliveries.PlatformLogPage.as_view(), name="platform-log"),
    _delivery_path("new", deliveries.ConfigCreatePage, "delivery-new"),
    _delivery_path("<uuid:config_id>/edit", deliveries.ConfigEditPage, "delivery-edit"),
    _delivery_path("<uuid:config_id>/active", deliveries.ConfigActivePage, "delivery-active"),
    _delivery_path("<uuid:config_id>/delete", deliveries.ConfigDeletePage, "delivery-delete"),
    _delivery_path("<uuid:config_id>/test", deliveries.ConfigTestPage, "delivery-test"),
    _delivery_path("<uuid:config_id>/log", deliveries.ConfigLogPage, "delivery-log"),
    _delivery_path("<uuid:config_id>/redeliver", deliveries.RedeliverPage,
                   "delivery-redeliver"),
    path("apps/<uuid:app_id>/webhooks/<uuid:config_id>/secret",
         deliveries.WebhookSecretPage.as_view(), name="webhook-secret"),
    path("apps/<uuid:app_id>/costs", costs.CostsPage.as_view(), name="costs"),
    path("apps/<uuid:app_id>/costs/apply", costs.CostApplyPage.as_view(), name="costs-apply"),
    path("apps/<uuid:app_id>/rates", rates.RatesPage.as_view(), name="rates"),
    path("apps/<uuid:app_id>/rates/apply", rates.RateApplyPage.as_view(), name="rates-apply"),
    path("apps/<uuid:app_id>/rates/edit", rates.RateEditPage.as_view(), name="rate-edit"),
    path("apps/<uuid:app_id>/link-builder", link_builder.LinkBuilderPage.as_view(),
         name="link-builder"),
    path("apps/<uuid:app_id>/links", links.LinkListPage.as_view(), name="links"),
    path("apps/<uuid:app_id>/links/new", links.LinkCreatePage.as_view(), name="link-new"),
    path("apps/<uuid:app_id>/links/<uuid:link_id>", links.LinkDetailPage.as_view(),
         name="link-detail"),
    path("apps/<uuid:app_id>/links/<uuid:link_id>/edit", links.LinkEditPage.as_view(),
         name="link-edit"),
    path("apps/<uuid:app_id>/links/<uuid:link_id>/qr", links.LinkQrPage.as_view(),
         name="link-qr"),
    path("apps/<uuid:app_id>/links/<uuid:link_id>/delete", links.LinkDeletePage.as_view(),
         name="link-delete"),
    path("apps/<uuid:app_id>/conversion-schema", conversion.ConversionSchemaPage.as_view(),
         name="conversion"),
    path("apps/<uuid:app_id>/skan", skan_report.SkanReportPage.as_view(), name="skan-report"),
    path("apps/<uuid:app_id>/skan/campaign-mappings", skan_mappings.SkanMappingsPage.as_view(),
         name="skan-campaign-mappings-edit"),
    path("apps/<uuid:app_id>/privacy", privacy.PrivacyRequestsPage.as_view(), name="privacy"),
    path("apps/<uuid:app_id>/privacy/<uuid:request_id>", privacy.PrivacyRequestPage.as_view(),
         name="privacy-request"),
    path("data-destinations", data_destinations.DestinationListPage.as_view(),
         name="data-destinations"),
    path("data-destinations/<uuid:destination_id>", data_destinations.DestinationPage.as_view(),
         name="data-destination"),
    path("audit-log", audit.AuditLogPage.as_view(), name="audit-log"),
    path("docs/<str:name>.md", docs.DocPage.as_view(), name="doc"),
]
