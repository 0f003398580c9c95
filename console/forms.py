"""Turning a submitted HTML form into the API's input, so a console form is checked by the very
serializer (and service) the API uses, and its errors come back as the API states them:
`{field: [messages]}`, shown beside each field.

A form only ever sends strings; `form_data` gives each declared field the JSON type its API
serializer expects (a checkbox a boolean, a number an int, a multi-select a list), and leaves
out fields left empty so that optional ones take the API's default.
"""

from __future__ import annotations

from collections.abc import Mapping

from attribution_site.api.exceptions import ApiError, ValidationFailed

# NULLABLE: a text field that an emptied input sets to null (a URL taken off an app, say).
TEXT, NULLABLE, INTEGER, BOOLEAN, LIST = "text", "nullable", "integer", "boolean", "list"


def form_data(post, fields: Mapping[str, str], *, keep_empty: tuple[str, ...] = ()) -> dict:
    """The JSON-shaped body for `fields` ({name: kind}) read from a POSTed QueryDict."""
    data: dict = {}
    for name, kind in fields.items():
        if kind == BOOLEAN:
            data[name] = post.get(name) in ("on", "true", "1")
        elif kind == LIST:
            values = [value for value in post.getlist(name) if value.strip()]
            if values:
                data[name] = values
        else:
            if name not in post:
                continue
            raw = post.get(name, "")
            if raw.strip() == "" and kind == NULLABLE:
                data[name] = None
                continue
            if raw.strip() == "" and name not in keep_empty:
                continue
            if kind == INTEGER:
                try:
                    data[name] = int(raw)
                except ValueError:
                    data[name] = raw  # the serializer says what is wrong with it
            else:
                data[name] = raw
    return data


def validated(serializer_class, data: dict, **kwargs) -> dict:
    """The serializer's validated data, or the API's ValidationFailed with its details."""
    serializer = serializer_class(data=data, **kwargs)
    if not serializer.is_valid():
        fields = ", ".join(sorted(serializer.errors))
        raise ValidationFailed(f"Invalid input: {fields}.", _plain(serializer.errors))
    return serializer.validated_data


class FormProblem:
    """What a failed submission shows: the message at the top, the messages beside fields.

    The API's "Invalid input: company_name." names its fields; a person filling in the form sees
    labels, so the banner names them as words ("Company name"), or as the page's own labels (in
    the form's order) when it passes them."""

    def __init__(self, error: ApiError, labels: Mapping[str, str] | None = None):
        self.fields = _plain(error.details)
        self.status = error.status
        labels = labels or {}
        named = sorted(dict.fromkeys(name.split(".", 1)[0] for name in self.fields
                                     if name != "non_field_errors"),
                       key=lambda name: list(labels).index(name) if name in labels else len(labels))
        if isinstance(error, ValidationFailed) and named:
            words = [labels.get(name) or field_label(name) for name in named]
            self.message = f"Please check {', '.join(words)}: see the message beside each field."
        else:
            self.message = error.message

    @property
    def general(self) -> list[str]:
        return self.fields.get("non_field_errors", [])


def field_label(name: str) -> str:
    """company_name -> "Company name"; the API's names read as the forms' labels mostly do."""
    words = name.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def _plain(details) -> dict[str, list[str]]:
    """Nested serializer errors flattened to {"field" or "field.sub": [strings]}."""
    flat: dict[str, list[str]] = {}

    def walk(prefix: str, value) -> None:
        if isinstance(value, Mapping):
            for key, inner in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), inner)
        elif isinstance(value, list) and value and not all(isinstance(v, str) for v in value):
            for index, inner in enumerate(value):
                if inner:
                    walk(f"{prefix}.{index}", inner)
        elif isinstance(value, list):
            flat.setdefault(prefix or "non_field_errors", []).extend(str(v) for v in value)
        else:
            flat.setdefault(prefix or "non_field_errors", []).append(str(value))

    walk("", details)
    return flat
