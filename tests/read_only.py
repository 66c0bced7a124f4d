"""Checks shared by the tests of every path that stores JSON values (nothing in them can change)
and of every path that hands values out (plain dicts and lists, the caller's to change)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from agentscope_py import ReadOnlyError


def assert_read_only(value: Any) -> None:
    """Every dict and list inside ``value`` refuses to change (and is still there, unchanged)."""
    if isinstance(value, Mapping):
        before = dict(value)
        with pytest.raises(ReadOnlyError, match="read-only"):
            value["added"] = 1  # type: ignore[index]
        assert dict(value) == before
        for item in value.values():
            assert_read_only(item)
    elif isinstance(value, list):
        before_items = list(value)
        with pytest.raises(ReadOnlyError, match="read-only"):
            value.append(1)
        assert list(value) == before_items
        for item in value:
            assert_read_only(item)


def assert_plain(value: Any) -> None:
    """``value`` is made of plain ``dict``, ``list`` and scalars only: the caller's to change."""
    assert type(value) in (dict, list, str, int, float, bool, type(None)), type(value)
    if type(value) is dict:
        for item in value.values():
            assert_plain(item)
    elif type(value) is list:
        for item in value:
            assert_plain(item)
