"""An event's ISO-8601 instant as a message's local wall-clock timestamp (``event._instants``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
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


def _by_the_second(created_at: str) -> str:
    """What ``local_timestamp`` must give: the instant converted on its own, second by second."""
    match = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)", created_at, re.ASCII)
    assert match is not None
    wall, fraction, zone = match.groups()
    try:
        offset = 0 if zone == "Z" else (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 60 + int(zone[-2:]))
        utc = datetime.fromisoformat(wall) - timedelta(minutes=offset)
        text = datetime.fromtimestamp((utc - datetime(1970, 1, 1)) // timedelta(seconds=1)).isoformat(" ")
    except (ValueError, OverflowError, OSError):
        return "now"
    return f"{text}.{(fraction or '0').ljust(3, '0')[:3]}"


# POSIX zones (no tz database needed): whole hours, half and three-quarter hours, daylight saving time
# by an hour and (Lord Howe) by half an hour, one west of UTC, and changes in the middle of an hour
# (St. John's until 2011 changed at one minute past midnight).
_ZONES = [
    "UTC0",
    "JST-9",
    "IST-5:30",
    "NPT-5:45",
    "EST5EDT,M3.2.0,M11.1.0",
    "CET-1CEST,M3.5.0,M10.5.0/3",
    "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
    "<-0930>9:30",
    "NST3:30NDT,M3.2.0/0:01,M11.1.0/0:01",
    "EST5EDT,M3.2.0/2:30,M11.1.0/2:30",
]
_INSTANTS = st.builds(
    lambda moment, fraction, zone: f"{moment.isoformat(timespec='seconds')}{fraction}{zone}",
    st.one_of(
        st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
        # Around the daylight saving changes of the zones above, where an hour's seconds stop being
        # one offset.
        st.builds(
            lambda day, seconds: day + timedelta(seconds=seconds),
            st.sampled_from([datetime(2026, 3, 8), datetime(2026, 3, 29), datetime(2026, 4, 5), datetime(2026, 10, 4),
                             datetime(2026, 10, 25), datetime(2026, 11, 1)]),
            st.integers(-2 * 86400, 2 * 86400),
        ),
    ),
    st.sampled_from(["", ".5", ".123456789"]),
    st.sampled_from(["Z", "+00:00", "+05:30", "-0945", "+14:00", "-12:00", "+01:00", "-03:30"]),
)


@settings(max_examples=400)
@given(zone=st.sampled_from(_ZONES), instants=st.lists(_INSTANTS, min_size=1, max_size=8))
def test_the_local_time_is_the_instants_own_in_any_zone(zone: str, instants: list[str]) -> None:
    # The work done for an hour is kept for the next instant of that hour: each must still be its own.
    with pytest.MonkeyPatch.context() as patch, local_zone(zone):
        patch.setattr(_instants, "new_msg_timestamp", lambda: "now")
        for instant in instants:
            assert local_timestamp(instant) == _by_the_second(instant), instant
            later = instant[:14] + "59:59" + instant[19:]  # the same hour's last second
            assert local_timestamp(later) == _by_the_second(later), later


@pytest.mark.parametrize("created_at", ["2026-01-02T03:60:05Z", "2026-01-02T03:04:60Z", "2026-01-02T24:00:00Z", "2026-02-30T03:04:05Z"])
def test_a_time_that_does_not_exist_is_no_instant_so_the_time_is_now(monkeypatch: pytest.MonkeyPatch, created_at: str) -> None:
    monkeypatch.setattr(_instants, "new_msg_timestamp", lambda: "now")
    local_timestamp(created_at[:14] + "00:00Z")  # its hour known first, where it has one
    assert local_timestamp(created_at) == "now"


@pytest.mark.parametrize("zone", _ZONES)
def test_every_quarter_hour_around_the_changes_of_daylight_saving_time_is_its_own(
    monkeypatch: pytest.MonkeyPatch, zone: str
) -> None:
    # Where the local offset changes within an hour, that hour's minutes are not the instant's.
    monkeypatch.setattr(_instants, "new_msg_timestamp", lambda: "now")
    with local_zone(zone):
        for day in (datetime(2026, 3, 8), datetime(2026, 3, 29), datetime(2026, 4, 5), datetime(2026, 10, 4),
                    datetime(2026, 10, 25), datetime(2026, 11, 1)):
            for quarter in range(-4 * 24, 4 * 48):
                for offset in ("Z", "+05:30", "-03:30"):
                    instant = f"{(day + timedelta(minutes=15 * quarter)).isoformat(timespec='seconds')}{offset}"
                    assert local_timestamp(instant) == _by_the_second(instant), instant
