"""The tag a site pastes to measure its pages with a web key (docs/web.md, "The snippet").
Pure: the console shows it as text (autoescaped), never as markup."""

from __future__ import annotations

QUEUE_LINE = "window.Attribution = window.Attribution || {q: []};"


def web_snippet(*, service_origin: str, web_key: str) -> str:
    """The script tag, starting itself from `data-key`. The queue line, for calls made before
    the script has loaded, goes in the site's own script file: an inline script would need
    'unsafe-inline' under a strict Content-Security-Policy."""
    return (f'<script src="{service_origin.rstrip("/")}/sdk/web/v1.js" '
            f'data-key="{web_key}" async></script>')
