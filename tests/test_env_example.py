""".env.example lists every environment variable the service reads, and only those.

Read by parsing, nothing imported: every `env.<type>("NAME", ...)` call in
attribution_site/settings.py (attribution_site/env.py's typed reads), names read in a loop over
a module-level tuple of names (`for name in _OUTBOUND_EARLIER_NAMES`), and every
`os.environ.get("NAME")`, `os.environ["NAME"]` or `os.getenv("NAME")` in the project's own
modules (gunicorn.conf.py, the outbound client's CA bundle). A line of .env.example lists a name
whether it is set (`NAME=value`) or left commented out (`# NAME=value`). No database.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = ROOT / "attribution_site" / "settings.py"
# Besides hidden folders (.git, .venv, CI's .venv-newest: installed packages read their own
# variables, not ours).
SKIPPED_DIRS = {"node_modules", "__pycache__", "tests", "bench", "web_sdk"}
# Read by Django and Celery themselves to find the settings, never an operator's setting.
NOT_SETTINGS = {"DJANGO_SETTINGS_MODULE"}


def _string(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def names_read_by_settings(source: str) -> set[str]:
    """Every name settings.py reads through its `env` (attribution_site/env.py)."""
    tree = ast.parse(source)
    # Module-level tuples and lists of names, for reads in a loop over one of them.
    name_lists: dict[str, list[str]] = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Tuple | ast.List)):
            values = [_string(element) for element in node.value.elts]
            if values and all(values):
                name_lists[node.targets[0].id] = values
    # The loop variables bound to one of those lists: `for name in _EARLIER_NAMES`.
    loop_names: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if (isinstance(node, ast.comprehension | ast.For) and isinstance(node.target, ast.Name)
                and isinstance(node.iter, ast.Name) and node.iter.id in name_lists):
            loop_names[node.target.id] = name_lists[node.iter.id]
    names = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "env"
                and node.args):
            continue
        first = node.args[0]
        if _string(first):
            names.add(_string(first))
        elif isinstance(first, ast.Name) and first.id in loop_names:
            names.update(loop_names[first.id])
        else:
            raise AssertionError(f"settings.py line {node.lineno}: an env read whose name this "
                                 "test cannot tell: read it by its literal name")
    return names


def names_read_from_os_environ(source: str) -> set[str]:
    """`os.environ.get("NAME")`, `os.environ["NAME"]` and `os.getenv("NAME")`."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
            names.add(_string(node.slice))
        elif isinstance(node, ast.Call) and node.args and ast.unparse(node.func) in {
                "os.environ.get", "os.getenv"}:
            names.add(_string(node.args[0]))
    return {name for name in names if name} - NOT_SETTINGS


def names_read() -> set[str]:
    names = names_read_by_settings(SETTINGS.read_text())
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT).parts
        if not SKIPPED_DIRS.intersection(parts) and not any(p.startswith(".") for p in parts):
            names |= names_read_from_os_environ(path.read_text())
    return names


def names_listed() -> set[str]:
    text = (ROOT / ".env.example").read_text()
    return set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]*)=", text, re.MULTILINE))


def test_every_setting_read_is_in_env_example():
    missing = sorted(names_read() - names_listed())
    assert not missing, (
        ".env.example lacks these settings the service reads; add each with a one-line comment "
        "(what it does, its default):\n" + "\n".join(missing))


def test_env_example_lists_no_setting_that_is_no_longer_read():
    stale = sorted(names_listed() - names_read())
    assert not stale, ".env.example lists settings nothing reads any more:\n" + "\n".join(stale)


def test_the_parser_finds_literal_reads_and_reads_in_a_loop_over_names():
    source = '''
env = Env(os.environ)
DEBUG = env.bool("DEBUG", False)
_EARLIER = ("OLD_ONE", "OLD_TWO")
ALLOW = env.bool("NEW", False) or any(env.bool(name, False) for name in _EARLIER)
'''
    assert names_read_by_settings(source) == {"DEBUG", "NEW", "OLD_ONE", "OLD_TWO"}
    assert names_read_from_os_environ(
        'import os\nA = os.environ.get("A")\nB = os.environ["B"]\nC = os.getenv("C", "")\n'
        'os.environ.setdefault("DJANGO_SETTINGS_MODULE", "x")\n') == {"A", "B", "C"}
