"""The readiness checks apps register, as Django's system checks are registered: each app adds
its own in its AppConfig.ready(), so /readyz (attribution_site/health.py) knows no app.

A check takes the basic results (`{"database": bool, "redis": bool | None}`, None when Redis
is not configured) and answers (state, details): the state is what `checks.<name>` shows
("ok", "warning", "not checked", "not configured"), the details what `<name>` shows (a dict, or
None). A registered check reports and never fails readiness: a web process that can reach its
database and Redis can serve, and taking every one of them out of the load balancer over late
postbacks would turn them into lost installs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from attribution_site.docstrings import summary

logger = logging.getLogger(__name__)

Basics = Mapping[str, bool | None]
Check = Callable[[Basics], tuple[str, dict | None]]

_checks: dict[str, Check] = {}


def register(name: str, check: Check) -> None:
    """Add (or replace) the check reported under `name`."""
    _checks[name] = check


def run_all(basics: Basics) -> dict[str, tuple[str, dict | None]]:
    """Every registered check, in the order of registration. A check that raises is reported
    as "not checked", never as the failure of the whole probe."""
    results = {}
    for name, check in _checks.items():
        try:
            results[name] = check(basics)
        except Exception:  # noqa: BLE001 - one check's trouble is not readiness's
            logger.warning("readiness: the %s check failed", name, exc_info=True)
            results[name] = ("not checked", None)
    return results


def describe() -> list[dict[str, str]]:
    """Every registered check, in the order of registration, as the map lists it
    (docs/architecture.md): its name in /readyz, the app that registered it, what it looks at."""
    return [{"name": name, "app": check.__module__.split(".")[0],
             "check": f"{check.__module__}.{check.__qualname__}", "does": summary(check)}
            for name, check in _checks.items()]
