"""A CSV pasted or uploaded in the console, read and checked before anything is stored: what the
cost upload (console/views/costs.py) and the rates upload (console/views/rates.py) share. Each
page's reader (`analytics.cost_csv`, `analytics.rates_csv`) checks the lines; this module gets
the text, turns a file-level problem into a sentence, and pages through what the preview lists.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from analytics import csv_input

# Below Django's DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB): "Apply" posts the text back as a form
# field, which that setting bounds. 10,000 cost rows (the API's limit) are ~600 kB.
MAX_UPLOAD_BYTES = 2_000_000
PREVIEW_ROWS = 200
NOTHING = "Choose a CSV file or paste its text."
NOT_UTF8 = "The file is not UTF-8 text. Save it from your spreadsheet as “CSV UTF-8”."


def sentence(message: str) -> str:
    return message[:1].upper() + message[1:] + ("" if message.endswith(".") else ".")


def submitted_text(request, *, max_bytes: int, too_large: str) -> tuple[str | None, str | None]:
    """The CSV text of an upload form (a file, else the pasted text), or what is wrong."""
    upload = request.FILES.get("file")
    if upload is not None and upload.size:
        if upload.size > max_bytes:
            return None, too_large
        try:
            return upload.read().decode("utf-8-sig"), None
        except UnicodeDecodeError:
            return None, NOT_UTF8
    text = request.POST.get("text", "")
    if len(text.encode()) > max_bytes:
        return None, too_large
    text = text.removeprefix("\ufeff")
    return (text, None) if text.strip() else (None, NOTHING)


@dataclass(frozen=True)
class UploadPreview:
    """A checked upload: the file-level problem, or the reader's file (`checked`: its `valid`,
    `lines`, `invalid_lines` and `rows`)."""

    text: str
    problem: str | None = None
    checked: Any = None

    @property
    def valid(self) -> bool:
        return self.checked is not None and self.checked.valid

    def _listed(self) -> list:
        # A file with errors lists the lines to fix; a valid one its first lines.
        return self.checked.lines if self.valid else self.checked.invalid_lines

    @property
    def shown(self) -> list:
        return self._listed()[:PREVIEW_ROWS]

    @property
    def hidden_count(self) -> int:
        return max(len(self._listed()) - PREVIEW_ROWS, 0)


Preview = TypeVar("Preview", bound=UploadPreview)


def checked_upload(preview: type[Preview], text: str, read: Callable[[io.StringIO], Any]
                   ) -> Preview:
    try:
        checked = read(io.StringIO(text, newline=""))
    except csv_input.CsvProblem as problem:
        return preview(text=text, problem=sentence(str(problem)))
    return preview(text=text, checked=checked)
