"""mypy run in-process, as the typing and docs tests run it, leaving the interpreter as it found it."""

from __future__ import annotations

import sys

from mypy import api as mypy_api


def run_mypy(args: list[str]) -> tuple[str, str, int]:
    """``mypy.api.run(args)``.  mypy raises Python's recursion limit for its own deep recursion and
    leaves it raised; it is put back, so that the tests run after it meet the limit users have."""
    limit = sys.getrecursionlimit()
    try:
        return mypy_api.run(args)
    finally:
        sys.setrecursionlimit(limit)
