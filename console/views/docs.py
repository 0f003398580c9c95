"""The repository's own docs/ (docs/console.md, "The docs, served by the console"): the console's
pages mention docs/delivery.md, docs/apple.md and the rest, and link them here so the links work
offline and on the version that runs. Only a file that is in docs/ under a plain name
(`[a-z0-9-]`, ending `.md`) is served, as UTF-8 plain text, to anyone: they are the project's
public documentation, and no secret or setting of this instance is in them."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpResponse
from django.views import View

DOCS_DIR = Path(settings.BASE_DIR) / "docs"
# No dot, slash, backslash or percent sign can pass: nothing outside docs/ is named by it.
DOC_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")


def doc_file(name: str) -> Path | None:
    """docs/<name>.md when the name is a plain one and the file is in docs/ itself (a symlink
    that leads elsewhere is refused), else None."""
    if not DOC_NAME.fullmatch(name):
        return None
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
        return HttpResponse(path.read_bytes(), content_type="text/plain; charset=utf-8")
