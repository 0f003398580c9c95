"""Typed reads of environment variables that fail loudly.

Every setting comes from the environment (see `.env.example`). A value that cannot be parsed
stops start-up with a message naming the variable, instead of running with a silent default.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class Env:
    def __init__(self, environ: Mapping[str, str]):
        self._environ = environ

    def raw(self, name: str) -> str | None:
        value = self._environ.get(name)
        return None if value is None else value.strip()

    def str(self, name: str, default: str = "") -> str:
        value = self.raw(name)
        return default if value is None or value == "" else value

    def bool(self, name: str, default: bool) -> bool:
        value = self.raw(name)
        if value is None:
            return default
        if value.lower() in _TRUE:
            return True
        if value.lower() in _FALSE:
            return False
        raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {value!r}")

    def int(self, name: str, default: int, *, minimum: int | None = None) -> int:
        value = self.raw(name)
        if value is None or value == "":
            return default
        try:
            number = int(value)
        except ValueError:
            raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from None
        if minimum is not None and number < minimum:
            raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {number}")
        return number

    def list(self, name: str, default: list[str]) -> list[str]:
        value = self.raw(name)
        if value is None or value == "":
            return default
        return [item.strip() for item in value.split(",") if item.strip()]

    def int_list(self, name: str, default: list[int]) -> list[int]:
        items = self.list(name, [str(d) for d in default])
        try:
            numbers = [int(item) for item in items]
        except ValueError:
            raise ImproperlyConfigured(
                f"{name} must be a comma-separated list of integers, got {self.raw(name)!r}"
            ) from None
        if any(n < 0 for n in numbers):
            raise ImproperlyConfigured(f"{name} must not contain negative numbers")
        return numbers

    def choice(self, name: str, default: str, choices: set[str]) -> str:
        value = self.str(name, default)
        if value.upper() not in choices:
            raise ImproperlyConfigured(
                f"{name} must be one of {', '.join(sorted(choices))}, got {value!r}"
            )
        return value.upper()

    def https_url(self, name: str, default: str) -> str:
        """An https URL without credentials (a platform's token endpoint, path included)."""
        value = self.str(name, default)
        parts = urlsplit(value)
        if parts.scheme != "https" or not parts.hostname or parts.username or parts.password:
            raise ImproperlyConfigured(f"{name} must be an https URL without credentials, "
                                       f"got {value!r}")
        return value

    def https_origin(self, name: str, default: str) -> str:
        """An https origin (https://host[:port]), without a path or credentials: where the
        service calls a platform (tests point it at a local stand-in)."""
        value = self.str(name, default).rstrip("/")
        parts = urlsplit(value)
        if (parts.scheme != "https" or not parts.hostname or parts.username or parts.password
                or parts.path or parts.query or parts.fragment):
            raise ImproperlyConfigured(f"{name} must be an https origin (https://host[:port]), "
                                       f"got {value!r}")
        return value
