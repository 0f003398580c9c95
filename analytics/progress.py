"""A text progress bar for long management commands (seed_demo, analytics_refresh)."""

from __future__ import annotations

import time


class Progress:
    """`update(done, total)` redraws one line at most twice a second; `finish()` ends it."""

    WIDTH = 30

    def __init__(self, *, label: str, stream, interval: float = 0.5):
        self.label = label
        self.stream = stream
        self.interval = interval
        self.started = time.monotonic()
        self.drawn_at = 0.0
        self.last = (0, 0)
        self.drawn = None
        self.tty = getattr(stream, "isatty", lambda: False)()

    def update(self, done: int, total: int) -> None:
        self.last = (done, total)
        now = time.monotonic()
        if now - self.drawn_at >= self.interval:
            self.drawn_at = now
            self._draw(ending="\r" if self.tty else "\n")

    def finish(self) -> None:
        if self.tty or self.drawn != self.last:
            self._draw(ending="\n")

    def _draw(self, *, ending: str) -> None:
        done, total = self.drawn = self.last
        share = done / total if total else 1.0
        filled = int(share * self.WIDTH)
        elapsed = time.monotonic() - self.started
        self.stream.write(f"{self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] "
                          f"{share:4.0%} {done:,}/{total:,} {elapsed:5.1f}s", ending=ending)
        self.stream.flush()
