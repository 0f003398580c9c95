"""Browser tests: Debian's Chromium, driven through Playwright for Python, against the service
started the way the README starts it: the web process (gunicorn with gunicorn.conf.py), the
worker and beat, each a process of its own on this test's database and the real Redis.

A test fails on any uncaught page error, any Content-Security-Policy violation reported to the
console, and any JavaScript dialog (an `alert` from an injected payload must never fire). Each
main page is saved as a full-page PNG under test-output/screenshots/ (or $SCREENSHOT_DIR), and
the page at the moment of a failure as failure-<test>.png beside them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings

from tests.browser.helpers import (
    RECEIVER_BODY,
    SCREENSHOTS,
    browser,  # noqa: F401 - a fixture
    local_ca,  # noqa: F401 - a fixture
    page,  # noqa: F401 - a fixture
    service,  # noqa: F401 - a fixture
    troubles,  # noqa: F401 - a fixture
)
from tests.delivery.helpers import ssl_server_context
from tests.delivery.receivers import Receiver, Reply

README = Path(settings.BASE_DIR) / "README.md"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    # Fixtures below look at how the test itself went (`item.outcome_call`).
    report = yield
    setattr(item, f"outcome_{report.when}", report)
    return report


@pytest.fixture
def tls_receiver(local_ca) -> Iterator[Receiver]:  # noqa: F811 - the fixture imported above
    """An HTTPS receiver on 127.0.0.1 whose every answer is 200 with a body that would run a
    script if a page ever printed it as HTML."""
    receiver = Receiver(default=Reply(status=200, body=RECEIVER_BODY.encode()),
                        tls=ssl_server_context(local_ca.ca)).start()
    yield receiver
    receiver.stop()


@pytest.fixture
def screenshot(page) -> Callable[[str], Path]:  # noqa: F811 - the fixture imported above
    """Save the whole page as <name>.png in the screenshots directory."""

    def save(name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=path, full_page=True)
        return path

    return save
