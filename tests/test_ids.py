"""Generated ids and timestamps: their shape, and uniqueness within and across processes."""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Callable

import pytest
from zones import local_zone

from agentscope_py import AssistantMessage, DataBlock, Msg, URLSource, UserMessage
from agentscope_py._ids import new_event_time, new_hex_id, new_msg_id, new_msg_timestamp

MSG_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}")
EVENT_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
HEX_ID = re.compile(r"[0-9a-f]{32}")
MANY = 20_000


def assert_uuid4_shaped(text: str) -> None:
    parsed = uuid.UUID(text)
    assert str(parsed) == text  # 36 lowercase characters with dashes, as Java writes them
    assert parsed.version == 4
    assert parsed.variant == uuid.RFC_4122


@pytest.mark.parametrize(
    "make_id",
    [new_msg_id, lambda: UserMessage("x").id, lambda: Msg.builder().build().id],
    ids=["new_msg_id", "constructor", "builder"],
)
def test_message_ids_are_uuid4_shaped(make_id: Callable[[], str | None]) -> None:
    for _ in range(100):
        text = make_id()
        assert isinstance(text, str)
        assert_uuid4_shaped(text)


def test_message_ids_are_unique_within_a_process() -> None:
    assert len({new_msg_id() for _ in range(MANY)}) == MANY


def test_hex_ids_are_32_lowercase_hex_and_unique() -> None:
    ids = [new_hex_id() for _ in range(MANY)]
    assert all(HEX_ID.fullmatch(text) for text in ids)
    assert len(set(ids)) == MANY
    assert HEX_ID.fullmatch(DataBlock(URLSource("u")).id)


# A child interpreter prints ids made before a fork, after it, and in the forked child.
_ID_SCRIPT = """
import json, os, sys
from agentscope_py._ids import new_hex_id, new_msg_id

def make(n):
    return [new_msg_id() for _ in range(n)] + [new_hex_id() for _ in range(n)]

before = make(500)
read_end, write_end = os.pipe()
child = os.fork()
if child == 0:
    os.close(read_end)
    with os.fdopen(write_end, "w") as out:
        json.dump(make(500), out)
    os._exit(0)
os.close(write_end)
with os.fdopen(read_end) as pipe:
    in_child = json.load(pipe)
_, status = os.waitpid(child, 0)
json.dump({"before": before, "after": make(500), "child": in_child, "status": status}, sys.stdout)
"""


def _ids_from_another_process() -> dict[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", _ID_SCRIPT], capture_output=True, text=True, check=True, timeout=60)
    report = json.loads(done.stdout)
    assert report.pop("status") == 0
    return report  # type: ignore[no-any-return]


def test_ids_are_unique_across_processes_and_forks() -> None:
    here = [new_msg_id() for _ in range(500)] + [new_hex_id() for _ in range(500)]
    groups = [here]
    for _ in range(3):
        report = _ids_from_another_process()
        groups += [report["before"] + report["after"], report["child"]]
    every_id = [text for group in groups for text in group]
    assert len(set(every_id)) == len(every_id)
    for group in groups:
        assert_uuid4_shaped(group[0])
        assert HEX_ID.fullmatch(group[-1])


# Slack for clock rounding only: the stamps are taken between the two readings of the clock.
SLACK = datetime.timedelta(seconds=1)


def test_message_timestamps_are_local_now() -> None:
    before = datetime.datetime.now()
    stamps = [new_msg_timestamp(), UserMessage("x").timestamp, AssistantMessage.builder().build().timestamp]
    after = datetime.datetime.now()
    for stamp in stamps:
        assert stamp is not None and MSG_TIMESTAMP.fullmatch(stamp)
        assert before - SLACK <= datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S.%f") <= after + SLACK


def test_a_zone_changed_at_run_time_counts_within_the_second() -> None:
    # The local time of a second is worked out once; after time.tzset() it must be again.
    def now_in(zone: str) -> datetime.datetime:
        with local_zone(zone):
            return datetime.datetime.strptime(new_msg_timestamp(), "%Y-%m-%d %H:%M:%S.%f")

    in_utc, in_tokyo = now_in("UTC0"), now_in("JST-9")
    assert datetime.timedelta(hours=9) - SLACK <= in_tokyo - in_utc <= datetime.timedelta(hours=9) + SLACK


def test_event_times_are_utc_now() -> None:
    before = datetime.datetime.now(datetime.timezone.utc)
    stamp = new_event_time()
    after = datetime.datetime.now(datetime.timezone.utc)
    assert EVENT_TIME.fullmatch(stamp)
    parsed = datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    assert before - SLACK <= parsed <= after + SLACK


def test_message_timestamps_are_local_time_not_utc() -> None:
    # In a zone other than UTC: on a machine that runs in UTC, local time and UTC agree.
    code = (
        "import datetime; from agentscope_py._ids import new_msg_timestamp;"
        "print(new_msg_timestamp()); print(datetime.datetime.now().isoformat(sep=' '))"
    )
    env = {**os.environ, "TZ": "XXX-5:30"}  # POSIX TZ: five and a half hours east of UTC
    stamp, now = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=60
    ).stdout.split("\n")[:2]
    parsed = datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S.%f")
    assert abs(parsed - datetime.datetime.fromisoformat(now)) < datetime.timedelta(seconds=2)
