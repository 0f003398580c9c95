"""The project has no import loop (docs/decisions.md, "No import loops").

Builds the graph of imports between first-party modules by parsing every file with `ast`
(nothing is imported), counting module-level imports and the ones inside functions alike,
since a function-local import that closes a loop only hides it until the function runs.
Imports under `if TYPE_CHECKING:` never run, so they are left out. `from package import name`
depends on `package` (it runs the package and reads its namespace, half-built while the
package's own imports run) and on `package.name` when that is a module; `import a.b` and
`from a.b import name` depend on `a.b` alone.

The apps are checked a second time as wholes: an app that imports another which imports it back
is a loop even when no two modules close it. The project package (`attribution_site`: settings,
URLs, the API plumbing every app uses) and the tests and benchmarks stand outside that check.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIPPED_DIRS = {".venv", ".git", "node_modules", "__pycache__"}
NOT_AN_APP = {"attribution_site", "tests", "bench"}


def first_party_modules(root: Path) -> dict[str, Path]:
    """Every module under a top-level package of the repository, by dotted name."""
    modules: dict[str, Path] = {}
    for package in sorted(root.iterdir()):
        if package.name in SKIPPED_DIRS or not (package / "__init__.py").is_file():
            continue
        for path in package.rglob("*.py"):
            relative = path.relative_to(root)
            if SKIPPED_DIRS.intersection(relative.parts):
                continue
            parts = list(relative.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(node: ast.AST):
    """Import statements anywhere in `node`, except the body of `if TYPE_CHECKING:`."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for orelse in child.orelse:
                yield from _import_nodes(ast.Module(body=[orelse], type_ignores=[]))
        else:
            yield from _import_nodes(child)


def _base_of_relative(module: str, is_package: bool, level: int, name: str | None) -> str:
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    return ".".join([*parts, name] if name else parts)


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Each first-party module -> the first-party modules it imports."""
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        is_package = path.name == "__init__.py"
        for node in _import_nodes(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = (
                    _base_of_relative(module, is_package, node.level, node.module)
                    if node.level
                    else node.module or ""
                )
                # `from package import name` runs the package and reads its namespace, so it
                # depends on the package as well as on the submodule `name` may be.
                targets.append(base)
                targets.extend(f"{base}.{alias.name}" for alias in node.names)
            for target in targets:
                if target in modules and target != module:
                    graph[module].add(target)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One loop through each strongly connected group of modules (Tarjan), shortest found."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(start: str) -> None:
        # Iterative so a deep graph cannot hit the recursion limit.
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    group: set[str] = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(group)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return [_shortest_loop(graph, group) for group in groups]


def app_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Each app -> the other apps its modules import."""
    apps: dict[str, set[str]] = {}
    for module, targets in graph.items():
        app = module.partition(".")[0]
        if app in NOT_AN_APP:
            continue
        apps.setdefault(app, set()).update(
            other for target in targets
            if (other := target.partition(".")[0]) != app and other not in NOT_AN_APP)
    return apps


def _shortest_loop(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for successor in sorted(graph[node] & group):
                if successor == start:
                    return [*paths[node], start]
                if successor not in paths:
                    paths[successor] = [*paths[node], successor]
                    following.append(successor)
        frontier = following
    raise AssertionError(f"{sorted(group)} is not strongly connected")


def test_the_graph_counts_function_local_imports_and_skips_type_checking_ones(tmp_path):
    package = tmp_path / "shop"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "orders.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from shop.invoices import Invoice\n"
        "def total():\n"
        "    from shop.stock import level\n"
    )
    (package / "stock.py").write_text("import shop.orders\n")
    (package / "invoices.py").write_text("from .orders import total\n")
    graph = import_graph(first_party_modules(tmp_path))

    assert graph["shop.orders"] == {"shop.stock"}
    assert graph["shop.invoices"] == {"shop.orders"}
    assert import_cycles(graph) == [["shop.orders", "shop.stock", "shop.orders"]]


def test_a_submodule_reading_its_half_built_package_closes_a_loop(tmp_path):
    package = tmp_path / "shop"
    package.mkdir()
    (package / "__init__.py").write_text("from shop.orders import total\n")
    (package / "orders.py").write_text("from shop import stock\n")
    (package / "stock.py").write_text("")
    graph = import_graph(first_party_modules(tmp_path))

    assert graph["shop.orders"] == {"shop", "shop.stock"}
    assert import_cycles(graph) == [["shop", "shop.orders", "shop"]]


def test_no_first_party_module_imports_itself_through_others():
    cycles = import_cycles(import_graph(first_party_modules(ROOT)))

    assert cycles == [], "import loops:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_no_app_imports_another_that_imports_it_back():
    cycles = import_cycles(app_graph(import_graph(first_party_modules(ROOT))))

    assert cycles == [], "app loops:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_settings_import_no_app():
    """Settings are read before any app is ready: what they check (the report currency) lives
    in the project package, never in a domain app."""
    graph = import_graph(first_party_modules(ROOT))
    apps = {target.partition(".")[0] for target in graph["attribution_site.settings"]}

    assert apps <= {"attribution_site"}, sorted(apps - {"attribution_site"})


def test_no_test_module_imports_a_conftest():
    """pytest loads each conftest.py itself; a helper other tests import lives in helpers.py
    beside it, so importing it never loads a second copy of a folder's fixtures."""
    importers = sorted(
        str(path.relative_to(ROOT)) for path in (ROOT / "tests").rglob("*.py")
        if re.search(r"^\s*(from|import)\s+tests(\.\w+)*\.conftest\b", path.read_text(),
                     flags=re.M))

    assert importers == [], importers


def test_each_folders_helpers_fixtures_are_registered_by_its_conftest():
    """A fixture defined in a folder's helpers.py reaches that folder's tests only through the
    conftest beside it importing it (a parameter of the same name once hid such an import from
    the linter, which removed it)."""
    missing = []
    for helpers in (ROOT / "tests").rglob("helpers.py"):
        conftest = helpers.with_name("conftest.py")
        module = ".".join(helpers.relative_to(ROOT).with_suffix("").parts)
        fixtures = [node.name for node in ast.parse(helpers.read_text()).body
                    if isinstance(node, ast.FunctionDef)
                    and any("fixture" in ast.unparse(d) for d in node.decorator_list)]
        if not fixtures or not conftest.exists():
            continue
        imported = {alias.name for node in ast.parse(conftest.read_text()).body
                    if isinstance(node, ast.ImportFrom) and node.module == module
                    for alias in node.names}
        missing += [f"{module}.{name}" for name in fixtures if name not in imported]

    assert missing == [], missing
