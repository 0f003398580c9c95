"""docs/architecture.md agrees with the code (attribution_site/architecture_map.py): its tables
are what the registries describe. No database.

The check runs `manage.py architecture_map --check` in a process of its own, so that it sees the
registries as the service has them, never a test's subscriber or cache added in this process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from attribution_site import architecture_map, celery, domain_events, local_cache, readiness
from outbox import kind
from privacy import erasure

ROOT = Path(__file__).resolve().parent.parent


def test_the_map_agrees_with_the_registries():
    checked = subprocess.run(
        [sys.executable, "manage.py", "architecture_map", "--check"], cwd=ROOT,
        capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert checked.returncode == 0, (
        "docs/architecture.md disagrees with the code's registries: run `make map` and commit "
        f"docs/architecture.md.\n{checked.stdout}{checked.stderr}")


def test_a_table_is_written_between_its_markers_and_the_prose_is_kept():
    text = "before\n<!-- map:kinds -->\nstale\n<!-- /map:kinds -->\nafter\n"
    table = architecture_map.table_render([{"name": "a|b", "task": "x.y"}],
                                          (("kind", "name"), ("task", "`task`")))

    written = architecture_map.tables_render(text, {"kinds": table})

    assert written == ("before\n<!-- map:kinds -->\n\n| kind | task |\n|---|---|\n"
                       "| a\\|b | `x.y` |\n\n<!-- /map:kinds -->\nafter\n")
    assert architecture_map.tables_render(written, {"kinds": table}) == written


def test_a_table_without_its_markers_is_an_error():
    with pytest.raises(architecture_map.MarkerMissing, match="map:kinds"):
        architecture_map.tables_render("no markers\n", {"kinds": "| t |"})


def test_markers_of_no_table_are_an_error():
    text = "<!-- map:gone -->\n<!-- /map:gone -->\n"
    with pytest.raises(architecture_map.MarkerMissing, match="gone"):
        architecture_map.tables_render(text, {})


def test_check_exits_with_the_diff_when_the_doc_disagrees(tmp_path, capsys):
    doc = tmp_path / "architecture.md"
    doc.write_text(architecture_map.DOC.read_text().replace(
        "| `outbox.sweep` |", "| `outbox.sweep_renamed` |"))

    with pytest.raises(CommandError, match="run `make map`"):
        call_command("architecture_map", "--check", "--doc", str(doc))
    assert "-| `outbox.sweep_renamed` |" in capsys.readouterr().out

    call_command("architecture_map", "--write", "--doc", str(doc))
    call_command("architecture_map", "--check", "--doc", str(doc))


def test_every_registry_describes_each_entry_with_its_app_and_a_line_of_what_it_does():
    described = {
        "domain events": domain_events.describe(), "readiness": readiness.describe(),
        "erasers": erasure.describe(), "beat": celery.describe(),
        "hand-offs": architecture_map.hand_offs_describe(),
        "apps": architecture_map.apps_describe(),
    }
    missing = [f"{name}: {row}" for name, rows in described.items() for row in rows
               if not (row.get("does") or row.get("owns"))]
    assert not missing, "give these a docstring (its first sentence goes on the map):\n" + (
        "\n".join(missing))
    assert len(readiness.describe()) == len(readiness._checks)
    assert len(domain_events.describe()) == sum(map(len, domain_events._subscribers.values()))
    assert [row["name"] for row in kind.describe()] == [k.name for k in kind.kinds()]
    assert {row["model"] for row in local_cache.describe_watched()} >= {"apps_registry.ApiKey"}


def test_the_hand_offs_are_found_in_each_apps_ready():
    rows = {row["hand_off"]: row for row in architecture_map.hand_offs_describe()}

    assert rows["apps_registry.request_signing.register"]["handed_in_by"] == "fraud"
    assert rows["tracking.services.clicks.deep_link_reader_register"]["held_by"] == "tracking"
    # Registries with a table of their own are not hand-offs.
    assert not any(name.endswith(("readiness.register", "domain_events.subscribe"))
                   for name in rows)
