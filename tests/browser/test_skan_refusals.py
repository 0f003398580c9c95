"""An iOS app's SKAdNetwork page in a real browser: postbacks Apple's devices sent that were
refused (a changed signature, a body that is no postback) are listed with the reason in words,
and the page's link to docs/apple.md opens the document rendered as a page, whose links to
sections of other documents land on their headings."""

import json

import pytest
import requests

from tests.browser.steps import api_sign_up, expect, log_in
from tests.skan import apple_vectors as apple

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]


def create_ios_app(service, token: str) -> str:
    answer = requests.post(service.api("apps"), headers={"Authorization": f"Bearer {token}"},
                           json={"name": "Shop", "platform": "ios",
                                 "bundle_id": "com.example.shop",
                                 "apple_app_id": str(apple.APP_STORE_ID),
                                 "app_store_url": "https://apps.apple.com/app/id525463029"},
                           timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()["data"]["app"]["id"]


def post_postback(service, body: dict) -> requests.Response:
    return requests.post(f"{service.url}/.well-known/skadnetwork/report-attribution/",
                         data=json.dumps(body), headers={"Content-Type": "application/json"},
                         timeout=10)


def test_refused_postbacks_show_with_their_reasons_and_the_doc_opens_as_a_page(
        page, service, screenshot):
    account = api_sign_up(service, email="ios@example.com", company="Acme")
    app_id = create_ios_app(service, account.token)
    forged = post_postback(service, {**apple.V4_FINE, "transaction-id": "forged-0001"})
    assert forged.json()["data"] == {"status": "refused", "reason": "bad_signature"}
    assert post_postback(service, {**apple.V4_COARSE, "source-identifier": "1"}).status_code \
        == 400

    log_in(page, account)
    page.goto(f"/console/apps/{app_id}/skan")
    expect(page.get_by_text("No postbacks were counted in this range.")).to_be_visible()
    page.get_by_role("link", name="2 arrived and were refused").click()
    refused = page.get_by_role("region", name="Refused postbacks")
    expect(refused).to_contain_text(
        f"2 postbacks naming App Store id {apple.APP_STORE_ID} were received in this range")
    rows = refused.get_by_role("row")
    expect(rows).to_have_count(3)  # the header and the two
    expect(rows.filter(has_text="forged-0001")).to_contain_text(
        "Apple's signature does not verify: not sent by Apple, or changed on the way.")
    expect(rows.filter(has_text="Not a postback as Apple sends them.")).to_contain_text(
        "`source-identifier` must be two to four digits.")
    screenshot("skan-refusals")

    refused.get_by_role("link", name="docs/apple.md").click()
    expect(page).to_have_url(f"{service.url}/console/docs/apple.md")
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Apple measurement: design and decisions")
    expect(page.get_by_role("heading", name="Answers Apple will not retry forever")).to_be_visible()
    assert "## " not in page.locator("article").inner_text()  # rendered, not raw Markdown
    screenshot("docs-apple")

    page.goto("/console/docs/architecture.md")
    expect(page.locator("article table").first).to_be_visible()  # a Markdown table, as a table
    page.get_by_role("link", name='decisions.md, "The SDK hot paths skip most middleware"').click()
    expect(page).to_have_url(
        f"{service.url}/console/docs/decisions.md#the-sdk-hot-paths-skip-most-middleware")
    expect(page.get_by_role("heading", name="The SDK hot paths skip most middleware")
           ).to_be_in_viewport()
