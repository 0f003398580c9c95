"""The console's cost upload: a CSV checked and previewed row by row, stored only when every row
is valid and the user applies it, then the campaigns' cost, CPI and ROAS for the uploaded days."""

from __future__ import annotations

import html
from datetime import timedelta
from decimal import Decimal

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from analytics import rollups
from analytics.models import CampaignCost
from console.views import costs
from tests.analytics.helpers import at, event, install
from tests.console.helpers import XSS_CAMPAIGN, XSS_SOURCE, assert_shown_as_text

pytestmark = pytest.mark.django_db

HEADER = "date,media_source,campaign_id,cost,currency\n"


def url(app, name="costs"):
    return reverse(f"console:{name}", args=[app.id])


def upload(console, app, text: str, *, name="costs.csv"):
    return console.post(url(app), {"file": SimpleUploadedFile(name, text.encode("utf-8"),
                                                              content_type="text/csv")})


def body_of(response) -> str:
    return response.content.decode()


def stored(app):
    return sorted((c.day.isoformat(), c.media_source, c.campaign_id, c.cost, c.currency)
                  for c in CampaignCost.objects.filter(app=app))


def test_the_page_documents_the_columns_with_an_example(console, app):
    response = console.get(url(app))
    assert response.status_code == 200
    body = response.content.decode()
    for column in ("date", "media_source", "campaign_id", "cost", "currency"):
        assert f"<code>{column}</code>" in body
    assert "2025-03-01,facebook,summer_sale,120.50,USD" in body
    assert 'enctype="multipart/form-data"' in body and 'type="file"' in body
    assert 'for="id_file"' in body and 'for="id_text"' in body


def test_a_valid_file_is_previewed_and_nothing_is_stored(console, app):
    response = upload(console, app, "\ufeff" + HEADER + "2025-03-01,facebook,c1,12.50,usd\n"
                                                       "2025-03-02,google,,3,EUR\n")
    assert response.status_code == 200
    body = response.content.decode()
    assert "All 2 rows are valid" in body
    assert "2025-03-01 to 2025-03-02" in body
    assert "12.50 USD" in body and "3.00 EUR" in body
    assert reverse("console:costs-apply", args=[app.id]) in body
    assert not CampaignCost.objects.exists()


def test_applying_stores_the_rows_checked_again_on_the_server(console, app):
    text = HEADER + "2025-03-01,facebook,c1,12.50,usd\n2025-03-02,google,,3,EUR\n"
    response = console.post(url(app, "costs-apply"), {"text": text})
    assert response.status_code == 302
    assert response["Location"] == (f"{url(app)}?range=custom&start=2025-03-01"
                                    f"&end=2025-03-02&imported=1")
    assert stored(app) == [("2025-03-01", "facebook", "c1", Decimal("12.5"), "USD"),
                           ("2025-03-02", "google", "", Decimal("3"), "EUR")]
    page = console.get(response["Location"])
    assert "Imported 2 cost rows: 2 new, 0 replaced." in page.content.decode()

    again = console.post(url(app, "costs-apply"), {"text": text.replace("12.50", "10")},
                         follow=True)
    assert "Imported 2 cost rows: 0 new, 2 replaced." in again.content.decode()
    assert stored(app)[0] == ("2025-03-01", "facebook", "c1", Decimal("10"), "USD")


def test_a_bad_row_is_shown_beside_its_line_and_blocks_the_whole_file(console, app):
    response = upload(console, app, HEADER + "2025-03-01,facebook,c1,12.50,USD\n"
                                             "2025-13-01,,c2,-1,dollars\n"
                                             "2025-03-01,facebook,c1,4,USD\n")
    assert response.status_code == 400
    body = response.content.decode()
    assert "2 of 3 rows need a fix" in body
    assert "Must be a date as YYYY-MM-DD." in body
    assert "This field may not be blank." in body
    assert "Ensure this value is greater than or equal to 0." in body
    assert "Must be an ISO 4217 code such as USD." in body
    assert "Repeats the date, media_source and campaign_id of line 2." in body
    assert '<th scope="row" class="num">3</th>' in body
    assert '<th scope="row" class="num">4</th>' in body
    assert '<th scope="row" class="num">2</th>' not in body  # valid rows are not listed
    assert url(app, "costs-apply") not in body
    assert not CampaignCost.objects.exists()


def test_the_preview_carries_the_exact_text_to_apply(console, app):
    text = HEADER + '2025-03-01,"fb, ""quoted""",c1,1.5,USD\n2025-03-01,fb,c1,2,USD\n'
    preview = body_of(upload(console, app, text))
    hidden = preview.split('<input type="hidden" name="text" value="', 1)[1].split('"', 1)[0]
    assert html.unescape(hidden) == text
    console.post(url(app, "costs-apply"), {"text": html.unescape(hidden)})
    assert stored(app) == [("2025-03-01", "fb", "c1", Decimal("2"), "USD"),
                           ("2025-03-01", 'fb, "quoted"', "c1", Decimal("1.5"), "USD")]


def test_apply_refuses_a_text_with_errors_and_stores_nothing(console, app):
    response = console.post(url(app, "costs-apply"),
                            {"text": HEADER + "2025-03-01,facebook,c1,abc,USD\n"})
    assert response.status_code == 400
    assert "A valid number is required." in response.content.decode()
    assert not CampaignCost.objects.exists()


@pytest.mark.parametrize("text,message", [
    ("date,media_source,cost\n2025-03-01,fb,1\n", "Header: missing column(s) currency"),
    ("date,media_source,cost,currency,spend\n", "unknown column(s) spend"),
    (HEADER, "The file has a header but no rows."),
    ("date,media_source,cost,currency\n2025-03-01,fb,1,USD,extra\n",
     "Line 2: more cells than header columns."),
])
def test_a_file_that_is_not_a_cost_csv_says_why(console, app, text, message):
    response = upload(console, app, text)
    assert response.status_code == 400
    body = response.content.decode()
    assert "The file cannot be read as a cost CSV." in body and message in body
    assert not CampaignCost.objects.exists()


def test_more_rows_than_the_api_takes_are_refused(console, app, monkeypatch):
    monkeypatch.setattr(costs, "MAX_COST_ROWS", 3)
    text = HEADER + "".join(f"2025-03-0{day},fb,c,1,USD\n" for day in range(1, 5))
    response = upload(console, app, text)
    assert response.status_code == 400
    assert "More than 3 rows: split the file and import each part." in \
        response.content.decode()


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(console, app, monkeypatch):
    monkeypatch.setattr(costs, "MAX_UPLOAD_BYTES", 100)
    response = upload(console, app, HEADER + "2025-03-01,facebook,c1,12.50,USD\n" * 5)
    assert response.status_code == 400
    assert "The file is larger than" in response.content.decode()
    assert not CampaignCost.objects.exists()


def test_the_size_limit_fits_the_apply_forms_field():
    assert costs.MAX_UPLOAD_BYTES < settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def test_a_file_that_is_not_utf8_or_an_empty_form_is_refused(console, app):
    response = console.post(url(app), {"file": SimpleUploadedFile(
        "costs.csv", (HEADER + "2025-03-01,caf\xe9,c1,1,USD\n").encode("latin-1"))})
    assert response.status_code == 400
    assert "The file is not UTF-8 text." in response.content.decode()
    empty = console.post(url(app), {"text": "  "})
    assert empty.status_code == 400
    assert "Choose a CSV file or paste its text." in empty.content.decode()


def test_pasted_text_is_checked_like_a_file(console, app):
    response = console.post(url(app), {"text": HEADER + "2025-03-01,facebook,c1,1,USD\n"})
    assert response.status_code == 200
    assert "All 1 row is valid" in response.content.decode()


def test_campaign_names_in_a_preview_are_shown_as_text(console, app):
    text = HEADER + f'2025-03-01,"{XSS_SOURCE.replace(chr(34), chr(34) * 2)}",' \
                    f"{XSS_CAMPAIGN},1,USD\n2025-03-02,fb,{XSS_CAMPAIGN},x,USD\n"
    response = upload(console, app, text)
    assert response.status_code == 400
    body = response.content.decode()
    assert_shown_as_text(body)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    console.post(url(app, "costs-apply"), {"text": text.splitlines()[0] + "\n"
                                                   + text.splitlines()[1] + "\n"})
    assert CampaignCost.objects.get(app=app).media_source == XSS_SOURCE
    page = console.get(url(app) + "?range=custom&start=2025-03-01&end=2025-03-01")
    assert_shown_as_text(page.content.decode())


def test_after_an_import_the_campaigns_show_cost_cpi_and_roas(console, app):
    day = timezone.now().date() - timedelta(days=3)
    for n in range(4):
        row = install(app, at(day, 10 + n), f"dev-{n}", source="facebook", campaign="summer")
        if n == 0:
            event(app, at(day, 18), f"dev-{n}", "purchase", install_row=row, amount="60",
                  currency="USD")
    rollups.rebuild_app(app_id=app.id)
    response = console.post(url(app, "costs-apply"), {
        "text": HEADER + f"{day.isoformat()},facebook,summer,40,USD\n"}, follow=True)
    assert response.status_code == 200
    body = response.content.decode()
    assert "Campaigns of the uploaded days" in body
    assert (f"{reverse('console:campaigns', args=[app.id])}?range=custom&amp;"
            f"start={day.isoformat()}&amp;end={day.isoformat()}") in body
    row = body[body.index('<td class="name" title="summer">summer</td>'):]
    cells = [cell.split(">", 1)[1].split("<", 1)[0] for cell in
             row.split("</td>")[:6]]
    assert cells[1:6] == ["4", "40.00", "10.00", "60.00", "150.00 %"]


def test_another_organizations_app_is_not_found(console, outsider_app):
    assert console.get(url(outsider_app)).status_code == 404
    response = console.post(url(outsider_app, "costs-apply"),
                            {"text": HEADER + "2025-03-01,fb,c,1,USD\n"})
    assert response.status_code == 404
    assert not CampaignCost.objects.exists()


def test_the_upload_needs_a_login(client, app):
    response = client.post(url(app, "costs-apply"), {"text": HEADER + "2025-03-01,fb,c,1,USD\n"})
    assert response.status_code == 302 and "/login" in response["Location"]
    assert not CampaignCost.objects.exists()


def test_a_row_in_a_currency_that_does_not_exist_blocks_the_file(console, app):
    response = upload(console, app, HEADER + "2025-03-01,facebook,c1,12.50,XYZ\n")
    assert response.status_code == 400
    body = body_of(response)
    assert "1 of 1 row needs a fix" in body
    assert "<code>currency</code>: Must be an ISO 4217 code such as USD." in body
    assert url(app, "costs-apply") not in body
    assert not CampaignCost.objects.exists()
