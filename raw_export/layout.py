"""Where each part of a run goes and when an hour is complete (docs/export.md,
"Layout"). Pure: standard library only, no clock (the watermark's time is passed in).

`{prefix}/t={topic}/dt={YYYY-MM-DD}/h={H}/part-{NNNNN}-{run}.{ext}`: the hour is not
zero-padded, as Data Locker's consumers expect, and is the UTC hour the service received the
row. An hour is complete once the run's watermark was taken `SETTLE` after the hour's end: a row
is stamped when the request arrives and commits a moment later, so by then every row of the
hour has committed and is in this run or an earlier one. Its `_SUCCESS` is written after the
run's last part.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

HOUR = timedelta(hours=1)
# A row is stamped when its request arrives and commits within its request's few seconds (the
# waterfall's write, an event batch's COPY); a delivery attempt is stamped as it ends. Five
# minutes covers that, a slow commit and a few seconds of clock skew between the app servers
# and the database, while keeping an hour's `_SUCCESS` a few minutes after the hour.
SETTLE = timedelta(minutes=5)
EXTENSIONS = {"parquet": "parquet", "csv": "csv.gz"}
SUCCESS = "_SUCCESS"
_RUN_TOKEN = re.compile(r"[^A-Za-z0-9_-]")


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
HOUR_MICROS = 3_600_000_000


def hour_of(moment: datetime) -> datetime:
    """The UTC hour (its start) a row stamped at `moment` belongs to."""
    return moment.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def hour_number(stamp: datetime | int) -> int:
    """Hours since the epoch of a stamp given as a datetime or as epoch microseconds (how the
    commit-ordered topics read their times): cheap enough to ask of every row."""
    if isinstance(stamp, int):
        return stamp // HOUR_MICROS
    return int(stamp.timestamp()) // 3600


def hour_start(number: int) -> datetime:
    return EPOCH + timedelta(hours=number)


def hour_dir(prefix: str, topic: str, hour: datetime) -> str:
    hour = hour.astimezone(UTC)
    path = f"t={topic}/dt={hour:%Y-%m-%d}/h={hour.hour}"
    prefix = prefix.strip("/")
    return f"{prefix}/{path}" if prefix else path


def part_key(prefix: str, topic: str, hour: datetime, number: int, run: str, fmt: str) -> str:
    """The key of the run's `number`th part of the hour. The same run writing the same hour
    again names its parts the same, so a retry of a run overwrites what it left."""
    return (f"{hour_dir(prefix, topic, hour)}/part-{number:05d}-{run_token(run)}."
            f"{EXTENSIONS[fmt]}")


def success_key(prefix: str, topic: str, hour: datetime) -> str:
    return f"{hour_dir(prefix, topic, hour)}/{SUCCESS}"


def run_token(run: str) -> str:
    """A run id as it may appear in a key (letters, digits, - and _)."""
    token = _RUN_TOKEN.sub("", run)
    if not token:
        raise ValueError("a run id needs letters or digits")
    return token


def complete_by(hour: datetime) -> datetime:
    """The watermark time from which an hour counts as complete."""
    return hour + HOUR + SETTLE


def stamp_window(*, since_at: datetime | None, until_at: datetime
                 ) -> tuple[datetime | None, datetime]:
    """For rows without a commit-order column (re-engagements, delivery attempts, SKAdNetwork
    postbacks): a run takes those stamped in [since - SETTLE, until - SETTLE), so consecutive
    runs cover every moment once, and an hour is complete (its end at or before until - SETTLE)
    exactly when it is complete for the commit-ordered topics too."""
    return (None if since_at is None else since_at - SETTLE), until_at - SETTLE


def hours_completed(*, since_at: datetime | None, until_at: datetime,
                    written: set[datetime]) -> list[datetime]:
    """The hours that get `_SUCCESS` from a run between two watermark times: every hour that
    became complete in (since, until], with rows or without (an empty hour is a finished hour
    too), and any complete hour the run wrote a late row into, so its `_SUCCESS` comes again
    after its newest part. The first run (no `since`) marks the complete hours it wrote."""
    done = {hour for hour in written if complete_by(hour) <= until_at}
    if since_at is not None:
        hour = hour_of(since_at - HOUR - SETTLE)
        while complete_by(hour) <= until_at:
            if complete_by(hour) > since_at:
                done.add(hour)
            hour += HOUR
    return sorted(done)
