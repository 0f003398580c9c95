"""The hour layout and the `_SUCCESS` rule (raw_export/layout.py): pure, no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from raw_export import layout


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 11, day, hour, minute, tzinfo=UTC)


def test_a_part_key_has_topic_day_and_unpadded_hour():
    key = layout.part_key("exports/raw/", "installs", at(5, 7), 3, "run-42", "parquet")
    assert key == "exports/raw/t=installs/dt=2026-11-05/h=7/part-00003-run-42.parquet"


def test_csv_parts_are_gzip_and_an_empty_prefix_adds_no_slash():
    assert (layout.part_key("", "inapps", at(5, 23), 0, "r1", "csv")
            == "t=inapps/dt=2026-11-05/h=23/part-00000-r1.csv.gz")
    assert layout.success_key("", "clicks", at(5, 0)) == "t=clicks/dt=2026-11-05/h=0/_SUCCESS"


def test_a_run_id_keeps_only_characters_safe_in_a_key():
    assert layout.run_token("2026/11/05 run:1") == "20261105run1"
    with pytest.raises(ValueError):
        layout.run_token("///")


def test_a_row_belongs_to_the_utc_hour_it_was_received_in():
    local = datetime(2026, 11, 5, 9, 59, 59, tzinfo=UTC).astimezone(ZoneInfo("Asia/Tokyo"))
    assert layout.hour_of(local) == at(5, 9)


def test_an_hour_is_complete_five_minutes_after_its_end():
    assert layout.complete_by(at(5, 9)) == at(5, 10, 5)


def test_a_run_marks_the_hours_that_became_complete_in_its_window_even_empty_ones():
    done = layout.hours_completed(since_at=at(5, 10, 3), until_at=at(5, 12, 6), written=set())
    assert done == [at(5, 9), at(5, 10), at(5, 11)]


def test_an_hour_not_yet_settled_gets_no_success():
    done = layout.hours_completed(since_at=at(5, 10, 6), until_at=at(5, 11, 4),
                                  written={at(5, 10), at(5, 11)})
    assert done == []


def test_a_late_row_in_an_old_hour_brings_its_success_again():
    done = layout.hours_completed(since_at=at(5, 12, 0), until_at=at(5, 12, 4),
                                  written={at(3, 8)})
    assert done == [at(3, 8)]


def test_the_first_run_marks_only_the_complete_hours_it_wrote():
    done = layout.hours_completed(since_at=None, until_at=at(5, 12, 4),
                                  written={at(1, 8), at(5, 11), at(5, 12)})
    assert done == [at(1, 8)]


def test_consecutive_runs_mark_every_hour_once():
    moments = [at(5, 0, 1) + timedelta(minutes=7 * i) for i in range(60)]
    marked = []
    for since_at, until_at in zip(moments, moments[1:], strict=False):
        marked += layout.hours_completed(since_at=since_at, until_at=until_at, written=set())
    assert marked == sorted(set(marked))
    assert marked == [at(4, 23) + timedelta(hours=h) for h in range(len(marked))]


def test_stamp_windows_of_consecutive_runs_meet():
    first = layout.stamp_window(since_at=None, until_at=at(5, 10))
    second = layout.stamp_window(since_at=at(5, 10), until_at=at(5, 11))
    assert first == (None, at(5, 9, 55))
    assert second == (at(5, 9, 55), at(5, 10, 55))
