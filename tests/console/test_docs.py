"""The repository's docs served by the console (docs/console.md, "The docs, served by the
console"): a file of docs/ by its plain name, as UTF-8 text, to anyone; any other name is a 404;
and the console's pages link their mentions of docs/<name>.md to it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from tests.factories import AppFactory

pytestmark = pytest.mark.django_db

DOCS = Path(settings.BASE_DIR) / "docs"
TEMPLATES = Path(settings.BASE_DIR) / "console" / "templates"
MENTION = re.compile(r"docs/([a-z0-9-]+)\.md")


@pytest.mark.parametrize("name", ["delivery", "apple", "console", "attribution-api"])
def test_a_doc_is_served_as_utf8_text_without_logging_in(client, name):
    response = client.get(f"/console/docs/{name}.md")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response.content == (DOCS / f"{name}.md").read_bytes()


@pytest.mark.parametrize("path", [
    "/console/docs/no-such-doc.md",                 # not in docs/
    "/console/docs/Delivery.md",                    # names are lower case, as the files are
    "/console/docs/delivery",                       # the .md is part of the address
    "/console/docs/delivery.txt",
    "/console/docs/images.md",                      # a directory of docs/, not a document
    "/console/docs/../README.md",
    "/console/docs/..%2FREADME.md",                 # an encoded slash
    "/console/docs/%2E%2E%2FREADME.md",
    "/console/docs/..%5CREADME.md",                 # a backslash
    "/console/docs/%2Fetc%2Fpasswd.md",             # an absolute path
    "/console/docs//etc/passwd.md",
    "/console/docs/.md",
    "/console/docs/delivery.md.md",
    "/console/docs/delivery%00.md",
])
def test_any_other_name_is_a_404(client, path):
    assert client.get(path).status_code == 404


def test_a_doc_is_read_only(client):
    assert client.post("/console/docs/delivery.md").status_code == 405


def test_every_docs_mention_in_the_console_templates_is_a_link_to_that_doc():
    mentions = []
    for template in TEMPLATES.rglob("*.html"):
        source = template.read_text()
        for mention in MENTION.finditer(source):
            name = mention[1]
            mentions.append(name)
            link = f"<a href=\"{{% url 'console:doc' '{name}' %}}\">"
            assert source[:mention.start()].endswith(link), (template, mention[0])
            assert (DOCS / f"{name}.md").is_file(), (template, mention[0])
    assert "delivery" in mentions and "apple" in mentions


def test_the_webhooks_page_links_the_signature_section_of_the_delivery_doc(console, app):
    body = console.get(reverse("console:deliveries", args=[app.id])).content.decode()
    assert '<a href="/console/docs/delivery.md">docs/delivery.md</a>' in body


@pytest.fixture
def ios_app(owner):
    return AppFactory(organization=owner.organization, platform="ios", package_name=None,
                      play_store_url=None, bundle_id="com.example.game")


@pytest.mark.parametrize("page", ["conversion", "skan-report"])
def test_the_skadnetwork_pages_link_the_apple_doc(console, ios_app, page):
    body = console.get(reverse(f"console:{page}", args=[ios_app.id])).content.decode()
    assert '<a href="/console/docs/apple.md">docs/apple.md</a>' in body
    assert "docs/apple.md" not in re.sub(r"<a [^>]*>docs/apple\.md</a>", "", body)
