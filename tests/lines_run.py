"""Work measured without a clock: the lines of some modules a call runs, for tests that an algorithm is
linear (a timing would depend on the machine; a count of lines does not)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from types import FrameType
from typing import Any


def lines_run(paths: Collection[str], action: Callable[[], object], limit: int | None = None) -> int:
    """The number of lines of the modules at ``paths`` that ``action`` runs (a loop's line once per
    round).  Past ``limit`` it fails the test at once, rather than run on: quadratic work may be
    millions of lines."""
    count = 0

    def count_lines(frame: FrameType, event: str, arg: object) -> Any:
        nonlocal count
        count += event == "line"
        if limit is not None and count > limit:
            raise AssertionError(f"ran more than {limit} lines of {sorted(paths)}")
        return count_lines

    def in_modules(frame: FrameType, event: str, arg: object) -> Any:
        return count_lines if frame.f_code.co_filename in paths else None

    tracing = sys.gettrace()
    sys.settrace(in_modules)
    try:
        action()
    finally:
        sys.settrace(tracing)
    return count
