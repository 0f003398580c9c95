"""A document of docs/ as HTML (docs/console.md, "The docs, served by the console"): text in,
HTML out; no Django, no file access.

markdown-it-py (CommonMark, pinned in requirements.txt) with raw HTML off: a `<script>` or any
tag written in a document is printed as text, and links keep markdown-it's own check (no
`javascript:`, `vbscript:`, `file:` or `data:` URLs). On top of CommonMark: tables, with their
column alignment as a class instead of a `style` attribute (the console's Content-Security-Policy
allows no inline style); an `id` on every heading, spelled as GitHub spells it, so the docs'
links to sections (`decisions.md#plain-sql-on-the-hot-paths`) land; and links between docs kept
relative, so they open the served copy of the other document.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

_ALIGN_CLASSES = {"text-align:right": "num", "text-align:center": "center"}
_NOT_IN_SLUG = re.compile(r"[^\w\- ]", re.UNICODE)
# A paragraph that is only an HTML comment (architecture.md's table markers, delivery.md's
# snippet labels): invisible where the docs are read on a forge, so left out here too rather
# than printed as text.
_COMMENT_ONLY = re.compile(r"<!--.*?-->", re.DOTALL)
# Documents outside docs/ that a document links to, and the name they are served under.
OUTSIDE_DOCS = {"README.md": "readme"}


@dataclass(frozen=True)
class Rendered:
    title: str  # the first heading's text, else ""
    html: str


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    md.add_render_rule("table_open", lambda *args: '<div class="table-wrap"><table>\n')
    md.add_render_rule("table_close", lambda *args: "</table></div>\n")
    return md


_MD = _parser()


def render(text: str) -> Rendered:
    tokens = _MD.parse(text)
    title = ""
    taken: dict[str, int] = {}
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            words = _plain_text(tokens[index + 1])
            title = title or words
            token.attrSet("id", _unique(heading_slug(words), taken))
        elif (token.type == "inline" and tokens[index - 1].type == "paragraph_open"
              and _COMMENT_ONLY.fullmatch(token.content.strip())):
            token.children = []
            tokens[index - 1].hidden = tokens[index + 1].hidden = True  # its <p> and </p>
        elif token.type in ("th_open", "td_open"):
            _align_as_class(token)
        elif token.type == "inline":
            for child in token.children or []:
                if child.type == "link_open":
                    child.attrSet("href", doc_href(str(child.attrGet("href") or "")))
    return Rendered(title=title, html=_MD.renderer.render(tokens, _MD.options, {}))


def heading_slug(words: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return _NOT_IN_SLUG.sub("", words.strip().lower()).replace(" ", "-")


def doc_href(href: str) -> str:
    """A link as it works from /console/docs/: another document of docs/ stays relative (it
    is served beside this one); the README, one level up, goes to the name it is served
    under; anything else is left as written."""
    if not href or ":" in href.split("/", 1)[0] or href.startswith(("/", "#")):
        return href  # absolute, or an anchor in this document
    path, hash_, fragment = href.partition("#")
    target = posixpath.normpath(posixpath.join("docs", path))
    if target in OUTSIDE_DOCS:
        return f"{OUTSIDE_DOCS[target]}.md{hash_}{fragment}"
    return href


def _plain_text(inline: Token) -> str:
    return "".join(child.content for child in inline.children or []
                   if child.type in ("text", "code_inline"))


def _unique(slug: str, taken: dict[str, int]) -> str:
    count = taken.get(slug, 0)
    taken[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


def _align_as_class(token: Token) -> None:
    style = token.attrGet("style")
    if style is None:
        return
    token.attrs.pop("style")
    css = _ALIGN_CLASSES.get(str(style).replace(" ", ""))
    if css:
        token.attrSet("class", css)
