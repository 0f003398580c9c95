"""The repository's text points at its own docs, never at the issue tracker.

The tracker is not part of the repository: a reader of a module, a doc or a test who meets a
ticket number cannot follow it, so every rule is named by the docs/ file and section that
explains it. This walks the text files of the tree and fails naming each file and line that
cites a ticket by number. No database.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Assembled from parts so that this file's own source does not match it.
TICKET_REFERENCE = re.compile("is" + r"sues? ?#?[0-9]+", re.IGNORECASE)

TEXT_SUFFIXES = {
    ".py", ".md", ".html", ".txt", ".toml", ".cfg", ".ini", ".yml", ".yaml", ".sh",
    ".lua", ".js", ".css", ".sql", ".example",
}
TEXT_NAMES = {"Makefile", "Dockerfile"}
SKIPPED_DIRS = {".venv", ".git", "node_modules", "__pycache__", "vendor"}


def is_checked(relative: Path) -> bool:
    """Our own text files; third-party assets (vendored libraries, their licences) are theirs."""
    if SKIPPED_DIRS.intersection(relative.parts):
        return False
    if relative.name.upper().startswith(("LICENSE", "LICENCE")):
        return False
    if relative.suffix in TEXT_SUFFIXES or relative.name in TEXT_NAMES:
        return True
    return not relative.suffix and is_script(ROOT / relative)


def is_script(path: Path) -> bool:
    """An executable without a suffix (the CI's scripts) is text when it starts with `#!`."""
    try:
        with path.open("rb") as file:
            return file.read(2) == b"#!"
    except OSError:
        return False


def repository_files() -> list[Path]:
    """Tracked files and new ones not yet added (ignored ones left out), or the whole tree
    when there is no git checkout (a copy of the source, an image)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT, capture_output=True, check=True, text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        candidates = (path.relative_to(ROOT) for path in ROOT.rglob("*") if path.is_file())
    else:
        candidates = (Path(name) for name in listed.split("\0") if name)
    return sorted(
        relative for relative in candidates
        if is_checked(relative) and (ROOT / relative).is_file()
    )


def ticket_references(relative: Path) -> list[str]:
    text = (ROOT / relative).read_text(encoding="utf-8", errors="replace")
    return [
        f"{relative}:{number}: {line.strip()}"
        for number, line in enumerate(text.splitlines(), start=1)
        if TICKET_REFERENCE.search(line)
    ]


def test_the_pattern_catches_a_ticket_number_and_spares_the_plain_word():
    word = "is" + "sue"
    assert TICKET_REFERENCE.search(f"({word} 25, section 1)")
    assert TICKET_REFERENCE.search(f"Done when ({word.title()} #7)")
    assert TICKET_REFERENCE.search(f"{word}s 24 and 25")
    assert not TICKET_REFERENCE.search(f"known {word}s with the bucket")
    assert not TICKET_REFERENCE.search(f"{word}_key(app)")


def test_the_walk_sees_code_docs_and_tests_but_not_vendored_assets():
    files = set(repository_files())
    assert Path("docs/decisions.md") in files
    assert Path("tests/test_repository_text.py") in files
    assert Path("Makefile") in files
    assert Path(".ci/run") in files
    assert not any("vendor" in path.parts for path in files)


def test_no_text_file_cites_the_issue_tracker():
    found = [hit for relative in repository_files() for hit in ticket_references(relative)]
    assert not found, (
        "name the docs/ file and section that holds the rule instead of a ticket number:\n"
        + "\n".join(found)
    )
