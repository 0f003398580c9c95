"""The Django admin: every model's list and change page opens for an operator, and no secret
or hash is ever shown."""

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

from apps_registry.models import ApiKey
from tests.tracking.helpers import click_through, install_body

pytestmark = pytest.mark.django_db


def test_every_admin_list_and_change_page_opens(operator_client, api, sdk_key, app, owner):
    click_through(api, app, pid="fb", advertising_id="gaid-1")
    api.credentials(HTTP_X_API_KEY=sdk_key)
    api.post("/api/v1/installs", install_body(app, device_id="gaid-1"), format="json")
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        prefix = f"admin:{meta.app_label}_{meta.model_name}"
        listing = operator_client.get(reverse(f"{prefix}_changelist"))
        assert listing.status_code == 200, meta.label
        first = model_admin.get_queryset(listing.wsgi_request).first()
        if first is not None:
            page = operator_client.get(reverse(f"{prefix}_change", args=[first.pk]))
            assert page.status_code == 200, meta.label


def test_no_password_or_key_hash_is_displayed(operator_client, owner, app, sdk_key):
    key = ApiKey.objects.get()
    pages = [reverse("admin:accounts_user_change", args=[owner.pk]),
             reverse("admin:apps_registry_apikey_change", args=[key.pk]),
             reverse("admin:apps_registry_app_change", args=[app.pk])]
    for url in pages:
        body = operator_client.get(url).content.decode()
        assert owner.password not in body
        assert owner.password.split("$")[-1] not in body
        assert key.secret_hash not in body
        assert sdk_key.split("_", 2)[2] not in body


@pytest.mark.parametrize("model,form", [
    ("currencyrate", {"currency": "XYZ", "day": "2025-03-01", "units_per_usd": "1.5"}),
    ("campaigncost", {"day": "2025-03-01", "media_source": "fb", "campaign_id": "",
                      "cost": "3", "currency": "XYZ"}),
    ("appreportsettings", {"currency": "XYZ"}),
])
def test_the_admin_refuses_a_currency_that_does_not_exist(operator_client, app, model, form):
    if model != "currencyrate":
        form = {**form, "app": str(app.id)}
    response = operator_client.post(reverse(f"admin:analytics_{model}_add"), form)
    assert response.status_code == 200  # the form again, with its errors
    errors = response.context["adminform"].form.errors
    assert errors == {"currency": ["An ISO 4217 code in capitals, such as USD."]}
    assert not apps.get_model("analytics", model).objects.exists()
