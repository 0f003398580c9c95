"""The generated tables of docs/architecture.md, the newcomer's map: each one is the live
registry's `describe()` rendered as Markdown, between a pair of marker comments
(`<!-- map:NAME -->` ... `<!-- /map:NAME -->`) that the prose around them never crosses.

`python manage.py architecture_map --write` (`make map`) rewrites them; `--check` and
tests/test_architecture_map.py fail when the doc disagrees with the code, so a new
subscription, outbox kind, readiness check, eraser, beat entry, cache or hand-off cannot be left
off the map. Rendering (`tables_render`) is pure; `tables()` reads the registries of a started
Django process.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.utils.module_loading import import_string

from attribution_site.docstrings import summary

DOC = Path(settings.BASE_DIR) / "docs" / "architecture.md"

Rows = Sequence[Mapping[str, str]]
# Each table: its column headings, and the row keys they show ("`key`" shows it as code).
Columns = Sequence[tuple[str, str]]


class MarkerMissing(ValueError):
    """The doc lacks a table's marker pair: the table has nowhere to go."""


def _project_apps() -> list[str]:
    """The project's own apps (not Django's or a library's), in INSTALLED_APPS order."""
    base = Path(settings.BASE_DIR).resolve()
    return [config.name for config in apps.get_app_configs()
            if Path(config.path).resolve().parent == base]


def apps_describe() -> list[dict[str, str]]:
    """Every app of the project and what it owns: its apps.py docstring's first sentence."""
    rows = []
    # The project package first: every app builds on it.
    for name in sorted(_project_apps(), key=lambda name: name != "attribution_site"):
        config = apps.get_app_config(name)
        owns = summary(config.module.apps) if hasattr(config.module, "apps") else ""
        rows.append({"app": f"{name}/", "owns": owns or summary(config.module)})
    return rows


def hand_offs_describe() -> list[dict[str, str]]:
    """The hand-offs: a function an app calls in its `ready()` to give a lower app what it
    cannot import (a reader, a builder, a check), found by reading every apps.py. The
    registries that have a table of their own are left out."""
    own_tables = {import_string(path) for path in (
        "attribution_site.domain_events.subscribe", "attribution_site.readiness.register",
        "attribution_site.local_cache.invalidate_on_write")}
    project = set(_project_apps())
    rows = []
    for name in _project_apps():
        path = Path(apps.get_app_config(name).path) / "apps.py"
        if not path.is_file():
            continue
        for dotted in _calls_in(path.read_text()):
            try:
                function = import_string(dotted)
            except ImportError:
                continue
            holder = getattr(function, "__module__", "") or ""
            if (holder.split(".")[0] not in project or function in own_tables
                    or not function.__name__.endswith(("register", "subscribe"))):
                continue
            rows.append({"hand_off": f"{holder}.{function.__name__}",
                         "held_by": holder.split(".")[0], "handed_in_by": name,
                         "does": summary(function)})
    return rows


def _calls_in(source: str) -> list[str]:
    """The dotted names of the functions a module calls through its `from x import y` names
    (`request_signing.register(...)` with `from apps_registry import request_signing`)."""
    tree = ast.parse(source)
    imported: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    calls = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id in imported:
                calls.append(f"{imported[func.value.id]}.{func.attr}")
        elif isinstance(func, ast.Name) and func.id in imported:
            calls.append(imported[func.id])
    return list(dict.fromkeys(calls))


def _registries() -> dict[str, tuple[Callable[[], Rows], Columns]]:
    from attribution_site import celery, domain_events, local_cache, readiness
    from outbox import kind
    from privacy import erasure

    return {
        "apps": (apps_describe, (("app", "`app`"), ("owns", "owns"))),
        "domain-events": (domain_events.describe, (
            ("event", "`event`"), ("app", "app"), ("handler", "`handler`"),
            ("adds, inside the recording write", "does"))),
        "outbox-kinds": (kind.describe, (
            ("kind", "name"), ("app", "app"), ("work rows", "`work`"),
            ("attempt rows", "`attempts`"), ("task", "`task`"),
            ("timeout", "`timeout_setting`"), ("grace", "`grace_setting`"))),
        "readiness": (readiness.describe, (
            ("check", "`name`"), ("app", "app"), ("function", "`check`"),
            ("looks at", "does"))),
        "erasers": (erasure.describe, (
            ("app", "app"), ("module", "`module`"), ("an erasure", "does"))),
        "beat": (celery.describe, (
            ("task", "`task`"), ("when", "when"), ("app", "app"), ("does", "does"))),
        "caches": (local_cache.describe, (
            ("cache", "`name`"), ("app", "app"), ("module", "`module`"), ("entries live", "ttl"))),
        "cache-invalidation": (local_cache.describe_watched, (
            ("model", "`model`"), ("tied in the `ready()` of", "app"))),
        "hand-offs": (hand_offs_describe, (
            ("hand-off", "`hand_off`"), ("held by", "held_by"),
            ("handed in by", "handed_in_by"), ("what", "does"))),
    }


def tables() -> dict[str, str]:
    """Every generated table by its marker name, from this process's registries. Rows of a
    module outside the project's apps (a test's subscriber, a test's cache) are left out."""
    project = set(_project_apps())
    rendered = {}
    for name, (describe, columns) in _registries().items():
        rows = [row for row in describe() if "app" not in row
                or row["app"].rstrip("/") in project]
        rendered[name] = table_render(rows, columns)
    return rendered


def table_render(rows: Rows, columns: Columns) -> str:
    """A Markdown table; a key written "`key`" shows its value as code."""
    def cell(row: Mapping[str, str], key: str) -> str:
        code = key.startswith("`")
        value = str(row[key.strip("`")]).replace("|", "\\|")
        return f"`{value}`" if code and value else value

    lines = ["| " + " | ".join(heading for heading, _ in columns) + " |",
             "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row, key) for _, key in columns) + " |" for row in rows]
    return "\n".join(lines)


def tables_render(text: str, rendered: Mapping[str, str]) -> str:
    """`text` with what lies between each table's markers replaced by the table. Raises
    MarkerMissing when a table's markers are not in the text, and for markers no table has."""
    for name, table in rendered.items():
        marker = re.escape(name)
        pattern = re.compile(rf"(<!-- map:{marker} -->\n).*?(<!-- /map:{marker} -->)", re.DOTALL)
        if not pattern.search(text):
            raise MarkerMissing(f"no <!-- map:{name} --> ... <!-- /map:{name} --> pair")
        # Blank lines around the table: without them a renderer may read the closing marker
        # as one more row.
        text = pattern.sub(lambda match, table=table: f"{match[1]}\n{table}\n\n{match[2]}",
                           text)
    unknown = set(re.findall(r"<!-- map:([\w-]+) -->", text)) - set(rendered)
    if unknown:
        raise MarkerMissing(f"markers of no table: {', '.join(sorted(unknown))}")
    return text


def difference(path: Path = DOC) -> str:
    """The unified diff from the doc as it is to the doc as the code describes it ("" when
    they agree)."""
    current = path.read_text()
    wanted = tables_render(current, tables())
    return "".join(difflib.unified_diff(current.splitlines(keepends=True),
                                        wanted.splitlines(keepends=True),
                                        fromfile=f"{path.name} (as written)",
                                        tofile=f"{path.name} (from the code)"))


def write(path: Path = DOC) -> bool:
    """Rewrite the doc's tables; whether anything changed."""
    current = path.read_text()
    wanted = tables_render(current, tables())
    if wanted != current:
        path.write_text(wanted)
    return wanted != current
