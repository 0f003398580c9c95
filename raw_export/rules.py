"""What a destination's fields may hold (docs/export.md, "Destinations"). Pure: standard
library only. Each function answers why a value is refused, in words for the owner, or None.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

# S3's rules, widened to what GCS (underscores; dotted names up to 222) and R2 accept.
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$")
_REGION = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
_PREFIX_PART = re.compile(r"^[A-Za-z0-9!_.*'()=+-]+$")


def bucket_problem(value: str) -> str | None:
    if not _BUCKET.match(value) or ".." in value:
        return ("Must be a bucket name: 3 to 222 lowercase letters, digits, dots, hyphens or "
                "underscores, starting and ending with a letter or digit.")
    return None


def region_problem(value: str) -> str | None:
    if value and not _REGION.match(value):
        return "Must be a region name such as us-east-1, eu-west-3 or auto."
    return None


def prefix_problem(value: str) -> str | None:
    """A key prefix: `/`-separated parts of S3's safe characters, no `.` or `..` part, no
    leading or doubled slash (stores treat `a//b` and `/a` as other keys than `a/b`)."""
    if not value:
        return None
    parts = value.rstrip("/").split("/")
    if value.startswith("/") or any(part in ("", ".", "..") for part in parts):
        return "Must be a relative key prefix like raw/attribution, without empty or dot parts."
    if not all(_PREFIX_PART.match(part) for part in parts):
        return ("May hold only letters, digits and !_.*'()=+- between slashes (S3's safe "
                "characters).")
    return None


def path_problem(value: str) -> str | None:
    """A directory below the server's export root: relative, no `..`."""
    if not value:
        return "Required for a directory destination."
    if any(ch in value for ch in "\\\0") or any(ord(ch) < 32 for ch in value):
        return "Must not contain backslashes or control characters."
    path = PurePosixPath(value)
    if path.is_absolute() or ".." in path.parts:
        return ("Must be a path relative to the server's export directory "
                "(RAW_EXPORT_DIRECTORY_ROOT), without '..'.")
    return None


def credential_problem(value: str) -> str | None:
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in value):
        return "Must not contain spaces or control characters."
    return None
