"""One run of a destination: every row of the chosen topics and apps that committed since the
last run, written as part files hour by hour, then each finished hour's `_SUCCESS` (docs/export.md,
"Layout", "Nothing lost, nothing twice").

The caller (raw_export's run task) stores the outcome's `until` only once this returns, and
hands it back as the next run's `since`: the watermarks chain, so every row is in exactly one
run whatever restarts, crashes or outages happen between. A run that dies part-way stored
nothing; the next try of the same run (same `run_id`, same `since`) reads every row the dead
one read and more, and writes its parts under the same names, so it replaces what the dead one
left (an hour's part count can only grow with its rows). A part is uploaded whole before the
next begins; `_SUCCESS` objects come after every part of the run.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from raw_export import files, layout, topics
from raw_export.columns import TOPICS
from raw_export.storage import Storage
from tracking import changes
from tracking.changes import Watermark

FORMATS = ("parquet", "csv")
CHUNK_ROWS = 10_000  # rows read, shaped and turned into columns at a time
# Rows per part: a part is written to local disk and then uploaded, so this bounds the disk
# a run needs (about 100 MB of Parquet for a million events) and the work a lost upload costs.
PART_ROWS = 1_000_000


@dataclass(frozen=True)
class TopicCounts:
    rows: int
    bytes: int


@dataclass(frozen=True)
class RunOutcome:
    until: dict  # the watermark written up to (tracking.changes.Watermark.to_json)
    topics: dict[str, TopicCounts]
    hours_completed: list[dict]  # [{"topic", "hour": ISO 8601 UTC}] given a _SUCCESS


def write_run(*, storage: Storage, prefix: str, fmt: str, topics: list[str],
              app_ids: list[uuid.UUID], since: dict | None, run_id: str) -> RunOutcome:
    """Write the rows committed after `since` (None: everything) and by now, for `app_ids`.
    Raises the storage's StorageError when an upload fails; nothing is then to be stored."""
    _check(fmt=fmt, names=topics, run_id=run_id)
    after = None if since is None else Watermark.from_json(since)
    through = changes.watermark_now()
    window = topics_window(app_ids, after, through)
    counts: dict[str, TopicCounts] = {}
    written: dict[str, set[datetime]] = {}
    for name in topics:
        counts[name], written[name] = _write_topic(
            storage=storage, prefix=prefix, fmt=fmt, name=name, window=window, run_id=run_id)
    completed = []
    since_at = None if after is None else after.taken_at
    for name in topics:
        for hour in layout.hours_completed(since_at=since_at, until_at=through.taken_at,
                                           written=written[name]):
            storage.put_bytes(layout.success_key(prefix, name, hour), b"")
            completed.append({"topic": name,
                              "hour": hour.astimezone(UTC).isoformat().replace("+00:00", "Z")})
    return RunOutcome(until=through.to_json(), topics=counts, hours_completed=completed)


def topics_window(app_ids: Sequence[uuid.UUID], after: Watermark | None,
                  through: Watermark) -> topics.Window:
    # Apps in a fixed order: a topic read app by app then splits its hours the same way on
    # every try of a run.
    return topics.Window(app_ids=tuple(sorted(app_ids, key=str)), after=after, through=through)


def _check(*, fmt: str, names: Sequence[str], run_id: str) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    unknown = [name for name in names if name not in TOPICS]
    if unknown:
        raise ValueError(f"unknown topic(s): {', '.join(unknown)}")
    layout.run_token(run_id)


def _write_topic(*, storage: Storage, prefix: str, fmt: str, name: str,
                 window: topics.Window, run_id: str) -> tuple[TopicCounts, set[datetime]]:
    stamp_at = topics.stamp_index(name)
    parts_of_hour: dict[datetime, int] = {}
    rows = size = 0
    part: files.PartFile | None = None
    part_hour, key = None, ""

    def upload() -> int:
        path = part.close()
        try:
            return storage.put_file(key, path)
        finally:
            path.unlink(missing_ok=True)

    try:
        for chunk in topics.READERS[name](window, CHUNK_ROWS):
            for number, same_hour in itertools.groupby(
                    chunk, key=lambda r: layout.hour_number(r[stamp_at])):
                hour, group = layout.hour_start(number), list(same_hour)
                while group:
                    if part is None or part_hour != hour or part.rows >= PART_ROWS:
                        if part is not None:
                            size += upload()
                        number = parts_of_hour.get(hour, 0)
                        parts_of_hour[hour] = number + 1
                        part, part_hour = files.PartFile(topic=name, fmt=fmt), hour
                        key = layout.part_key(prefix, name, hour, number, run_id, fmt)
                    taken, group = group[:PART_ROWS - part.rows], group[PART_ROWS - part.rows:]
                    part.write(files.record_batch(name, taken))
                    rows += len(taken)
        if part is not None:
            size += upload()
            part = None
    finally:
        if part is not None:
            part.discard()
    return TopicCounts(rows=rows, bytes=size), set(parts_of_hour)
