"""Serializer fields that refuse values of the wrong JSON type.

DRF's CharField turns `123` into `"123"` and BooleanField accepts `"yes"`; for a public API that
hides client bugs, so these fields insist on the JSON type the spec names.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import URLValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


class StrictCharField(serializers.CharField):
    default_error_messages = {"not_a_string": "Must be a string."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("not_a_string")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    default_error_messages = {"not_a_boolean": "Must be true or false."}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("not_a_boolean")
        return data


class HttpUrlField(StrictCharField):
    """An absolute URL whose scheme is one of `schemes` (http and https by default)."""

    def __init__(self, *, schemes: tuple[str, ...] = ("http", "https"), **kwargs):
        kwargs.setdefault("max_length", 2048)
        super().__init__(**kwargs)
        self._validator = URLValidator(schemes=list(schemes))
        self.error_messages["invalid_url"] = (
            f"Must be an absolute {' or '.join(schemes)} URL."
        )

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        try:
            self._validator(value)
        except DjangoValidationError:
            self.fail("invalid_url")
        return value


class StrictSerializer(serializers.Serializer):
    """Refuses keys it does not declare, so a typo is a 400 rather than a silent no-op."""

    # DRF's own says "Invalid data. Expected a dictionary, but got int.": Python's words. A
    # nested one (a row of a list) is not the body.
    default_error_messages = {"not_an_object": "The body must be a JSON object.",
                              "invalid": "Must be a JSON object."}

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError({"non_field_errors": [
                self.error_messages["not_an_object" if self.parent is None else "invalid"]]})
        unknown = sorted(set(data) - set(self.fields))
        errors = {}
        if unknown:
            errors = {name: ["Unknown field."] for name in unknown}
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if isinstance(exc.detail, dict):
                exc.detail.update({k: [serializers.ErrorDetail(v[0])] for k, v in errors.items()})
            raise
        if errors:
            raise serializers.ValidationError(errors)
        return value


def refuse_immutable(data, *, immutable: tuple[str, ...], message: str) -> None:
    """For an update body: a 400 naming each field of `immutable` that `data` sends, all with
    `message`, which says what can be updated (each endpoint keeps its own wording)."""
    if isinstance(data, dict):
        sent = [name for name in immutable if name in data]
        if sent:
            raise serializers.ValidationError({name: [message] for name in sent})


class StrictEmailField(StrictCharField):
    default_error_messages = {"invalid_email": "Enter a valid email address."}

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 254)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        from django.core.validators import validate_email

        value = super().to_internal_value(data).strip().lower()
        try:
            validate_email(value)
        except DjangoValidationError:
            self.fail("invalid_email")
        return value


class StrictIntegerField(serializers.IntegerField):
    default_error_messages = {"not_an_integer": "Must be an integer."}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("not_an_integer")
        return super().to_internal_value(data)


class StrictListField(serializers.ListField):
    """A JSON array (DRF would also accept a form-style QueryDict or a mapping)."""

    # DRF's own says 'Expected a list of items but got type "dict".': Python's type names.
    default_error_messages = {"not_a_list": "Must be a JSON array."}

    def to_internal_value(self, data):
        if not isinstance(data, list):
            self.fail("not_a_list")
        return super().to_internal_value(data)


class StrictUUIDField(serializers.UUIDField):
    """A UUID given as a string (DRF would also turn an integer into a UUID).

    Endpoints worded a bad UUID differently before they shared this field, and clients may
    match the words, so each passes its own `message` (else DRF's "Must be a valid UUID.").
    `as_text=True` keeps the cost import's reading, which checks the value as text first: a
    non-string is "Must be a string.", an empty one "This field may not be blank.", spaces
    around it are ignored, and the schema shows a plain string.
    """

    default_error_messages = {
        "not_a_string": StrictCharField.default_error_messages["not_a_string"],
        "blank": serializers.CharField.default_error_messages["blank"],
    }

    def __init__(self, *, message: str | None = None, as_text: bool = False, **kwargs):
        super().__init__(**kwargs)
        if message is not None:
            self.error_messages["invalid"] = message
        self.as_text = as_text
        if as_text:  # per instance: the other UUID fields stay `format: uuid`
            extend_schema_field({"type": "string", "minLength": 1})(self)

    def to_internal_value(self, data):
        if self.as_text:
            if isinstance(data, str) and not data.strip():
                self.fail("blank")
            if not isinstance(data, str):
                self.fail("not_a_string")
            data = data.strip()
        elif not isinstance(data, str):
            self.fail("invalid", value=data)
        return super().to_internal_value(data)
