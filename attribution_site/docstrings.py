"""The one line a registry's `describe()` gives for what a function or module does: the first
sentence of its docstring (docs/architecture.md is built from these). Pure: reads `__doc__`."""

from __future__ import annotations

import inspect
import re

# A sentence ends at a full stop followed by a capital letter, so a dotted name
# (`tracking.sql`, `docs/outbox.md`) or an abbreviation inside it does not end it.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`\"])")


def summary(obj: object) -> str:
    """The first sentence of `obj`'s docstring, on one line ("" when it has none)."""
    doc = inspect.getdoc(obj) or ""
    paragraph = " ".join(doc.strip().split("\n\n", 1)[0].split())
    return _SENTENCE_END.split(paragraph, 1)[0] if paragraph else ""
