"""The repository's own docs/ (docs/console.md, "The docs, served by the console"): the console's
pages mention docs/delivery.md, docs/apple.md and the rest, and link them here so the links work
offline and on the version that runs. Only a file that is in docs/ under a plain name
(`[a-z0-9-]`, ending `.md`), or the README, is served, rendered as an HTML page
(`console.doc_render`), to anyone: they are the project's public documentation, and no secret
or setting of this instance is in them."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.http import Http404
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views import View

from console import doc_render

DOCS_DIR = Path(settings.BASE_DIR) / "docs"
# No dot, slash, backslash or percent sign can pass: nothing outside docs/ is named by it.
DOC_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
OUTSIDE_DOCS = {name: Path(settings.BASE_DIR) / path
                for path, name in doc_render.OUTSIDE_DOCS.items()}


def doc_file(name: str) -> Path | None:
    """docs/<name>.md when the name is a plain one and the file is in docs/ itself (a symlink
    that leads elsewhere is refused), the README for `readme`, else None."""
    if not DOC_NAME.fullmatch(name):
        return None
    if name in OUTSIDE_DOCS:
        return OUTSIDE_DOCS[name]
    path = DOCS_DIR / f"{name}.md"
    if not path.is_file() or path.resolve().parent != DOCS_DIR.resolve():
        return None
    return path


class DocPage(View):
    http_method_names = ["get", "head"]

    def get(self, request, name):
        path = doc_file(name)
        if path is None:
            raise Http404("No such document.")
        page = doc_render.render(path.read_text(encoding="utf-8"))
        # The repository's own document, parsed with raw HTML off (doc_render): no user or ad
        # network wrote it, and every tag written in it was printed as text.
        return render(request, "console/docs/page.html", {
            "name": name, "title": page.title or f"{name}.md", "html": mark_safe(page.html)})
