"""The repository's docs served by the console (docs/console.md, "The docs, served by the
console"): a file of docs/ by its plain name, rendered as an HTML page, to anyone; any other name
is a 404; links between docs land; and the console's pages link their mentions of
docs/<name>.md to it."""

from __future__ import annotations

import re
from html import escape
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
def test_a_doc_is_served_as_an_html_page_without_logging_in(client, name):
    response = client.get(f"/console/docs/{name}.md")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    html = response.content.decode()
    first_heading = (DOCS / f"{name}.md").read_text().splitlines()[0].lstrip("# ")
    assert f"<title>{escape(first_heading)} · Attribution</title>" in html
    article = html.split('<article class="doc">', 1)[1].split("</article>", 1)[0]
    assert f">{escape(first_heading)}</h1>" in article
    assert "<h2 id=" in article and "\n## " not in article  # rendered, not raw Markdown


def test_the_readme_a_doc_links_is_served_too(client):
    architecture = client.get("/console/docs/architecture.md").content.decode()
    assert 'href="readme.md"' in architecture
    response = client.get("/console/docs/readme.md")
    assert response.status_code == 200
    assert "<h1" in response.content.decode()


def test_every_link_between_docs_lands_on_a_served_doc_and_section(client):
    """Each relative link of every doc, followed as the browser would from /console/docs/,
    answers 200, and its #section names a heading of that page."""
    ids: dict[str, set[str]] = {}
    broken = []
    for path in sorted(DOCS.glob("*.md")):
        html = client.get(f"/console/docs/{path.name}").content.decode()
        for href in re.findall(r'<a href="([^"#:]*\.md)(?:#([^"]*))?"', html):
            target, section = href
            if target not in ids:
                page = client.get(f"/console/docs/{target}")
                if page.status_code != 200:
                    broken.append(f"{path.name} -> {target}")
                    ids[target] = set()
                    continue
                ids[target] = set(re.findall(r' id="([^"]+)"', page.content.decode()))
            if section and section not in ids[target]:
                broken.append(f"{path.name} -> {target}#{section}")
    assert broken == []


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
