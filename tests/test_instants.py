"""An event's ISO-8601 instant as a message's local wall-clock timestamp (``event._instants``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest
from zones import local_zone

from agentscope_py.event import _instants
from agentscope_py.event._instants import local_timestamp


def local(instant: str) -> str:
    """``instant`` (ISO-8601 with a zone) as the machine's local wall-clock time, to the second."""
    return datetime.fromisoformat(instant).astimezone().strftime("%Y-%m-%d %H:%M:%S")


@pytest.fixture
def tokyo() -> Iterator[None]:
    with local_zone("JST-9"):  # POSIX: nine hours east of UTC, no tz database needed
        yield


def test_the_same_wall_clock_second_in_another_zone_is_another_instant() -> None:
    # Called back to back: the second must not take the first's local time, kept for its second.
    assert local_timestamp("2026-01-02T03:04:05Z") == f"{local('2026-01-02T03:04:05+00:00')}.000"
    assert local_timestamp("2026-01-02T03:04:05+02:00") == f"{local('2026-01-02T03:04:05+02:00')}.000"
    assert local_timestamp("2026-01-02T03:04:05Z") != local_timestamp("2026-01-02T03:04:05+02:00")


@pytest.mark.parametrize(
    ("offset", "written"),  # the offset, and as Python 3.10's fromisoformat reads it
    [("+05:30", "+05:30"), ("+0530", "+05:30"), ("-09:45", "-09:45"), ("+00:01", "+00:01")],
)
def test_an_offsets_minutes_count(offset: str, written: str) -> None:
    assert local_timestamp(f"2026-01-02T03:04:05{offset}") == f"{local(f'2026-01-02T03:04:05{written}')}.000"


@pytest.mark.parametrize(
    ("fraction", "millis"), [(".5", ".500"), (".05", ".050"), (".678901234", ".678"), ("", ".000"), (".1234", ".123")]
)
def test_a_fraction_of_a_second_is_given_in_milliseconds(fraction: str, millis: str) -> None:
    assert local_timestamp(f"2026-01-02T03:04:05{fraction}Z") == f"{local('2026-01-02T03:04:05+00:00')}{millis}"


@pytest.mark.parametrize("created_at", ["2026-01-02T03:04:05+\u0660\u0662:\u0660\u0660", "2026-01-02T03:04:05+02:\u0660\u0660", None])
def test_an_offset_in_digits_of_another_script_is_no_instant_so_the_time_is_now(
    monkeypatch: pytest.MonkeyPatch, created_at: str | None
) -> None:
    monkeypatch.setattr(_instants, "new_msg_timestamp", lambda: "now")
    assert local_timestamp(created_at) == "now"


def test_the_timestamp_is_in_the_local_zone(tokyo: None) -> None:
    assert local_timestamp("2026-07-08T03:04:05.25Z") == "2026-07-08 12:04:05.250"
    assert local_timestamp("2026-07-08T03:04:05+09:00") == "2026-07-08 03:04:05.000"


def test_a_zone_changed_at_run_time_counts_within_the_second_already_converted() -> None:
    instant = "2026-07-08T03:04:05Z"
    with local_zone("UTC0"):
        assert local_timestamp(instant) == "2026-07-08 03:04:05.000"
        with local_zone("JST-9"):
            assert local_timestamp(instant) == "2026-07-08 12:04:05.000"
        assert local_timestamp(instant) == "2026-07-08 03:04:05.000"
