"""The web script as committed (docs/web-sdk-wire.md, web_sdk/README.md): the files the service
serves from static/web_sdk/ exist, are the build's output (web_sdk/dist/), match manifest.json,
stay within their budget of 8 KB gzipped, and contain nothing a strict Content-Security-Policy
or the house rules refuse. No Node.js: `make sdk-check` is what rebuilds and compares.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
SERVED = ROOT / "static" / "web_sdk"
DIST = ROOT / "web_sdk" / "dist"
SCRIPTS = ["v1.js", "banner-v1.js"]
FILES = [*SCRIPTS, "banner-v1.css"]
BUDGET_GZIP_BYTES = 8 * 1024

# What a page under `script-src 'self' <service>; style-src 'self'` refuses, or what would put
# markup from the network into the page.
FORBIDDEN = {
    "eval(": "string evaluation (CSP needs 'unsafe-eval')",
    "new Function": "string evaluation (CSP needs 'unsafe-eval')",
    "innerHTML": "markup from strings",
    "insertAdjacentHTML": "markup from strings",
    "document.write": "markup from strings",
    ".style.": "inline styles on elements",
    ".style=": "inline styles on elements",
    "cssText": "inline styles on elements",
    'setAttribute("style"': "inline styles on elements",
    "createElement(\"style\")": "an inline <style> element",
}


def manifest() -> dict:
    return json.loads((SERVED / "manifest.json").read_text())


@pytest.mark.parametrize("name", [*FILES, "manifest.json"])
def test_each_served_file_is_the_builds_output(name):
    assert (SERVED / name).is_file(), f"static/web_sdk/{name} is missing: run `make sdk`"
    assert (SERVED / name).read_bytes() == (DIST / name).read_bytes()


@pytest.mark.parametrize("name", SCRIPTS)
def test_each_script_is_within_its_budget_of_8_kb_gzipped(name):
    size = len(gzip.compress((SERVED / name).read_bytes(), compresslevel=9))
    assert size <= BUDGET_GZIP_BYTES, f"{name} is {size} B gzipped"


@pytest.mark.parametrize("name", SCRIPTS)
def test_no_script_evaluates_strings_or_writes_markup_or_inline_styles(name):
    text = (SERVED / name).read_text()
    found = {needle: why for needle, why in FORBIDDEN.items() if needle in text}
    assert not found, f"{name}: {found}"


def test_the_manifest_lists_each_file_with_its_size_and_sha256():
    listed = manifest()["files"]
    assert sorted(listed) == sorted(FILES)
    for name, facts in listed.items():
        data = (SERVED / name).read_bytes()
        assert facts["bytes"] == len(data), name
        assert facts["sha256"] == hashlib.sha256(data).hexdigest(), name
        # Node's zlib and Python's may differ by a few bytes; the budget is checked above.
        assert abs(facts["gzip_bytes"] - len(gzip.compress(data, compresslevel=9))) < 64, name


def test_the_manifest_and_the_script_carry_the_packages_version():
    version = json.loads((ROOT / "web_sdk" / "package.json").read_text())["version"]
    assert manifest()["version"] == version
    assert f'"{version}"' in (SERVED / "v1.js").read_text()


def test_the_banner_module_carries_the_stylesheet_it_is_served_beside():
    css = (SERVED / "banner-v1.css").read_text().strip()
    assert css in (SERVED / "banner-v1.js").read_text()
