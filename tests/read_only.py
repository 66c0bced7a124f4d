"""A check shared by the tests of every path that stores JSON values: nothing in them can change."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest


def assert_read_only(value: Any) -> None:
    """Every dict and list inside ``value`` refuses to change (and is still there, unchanged)."""
    if isinstance(value, Mapping):
        before = dict(value)
        with pytest.raises(TypeError, match="read-only"):
            value["added"] = 1  # type: ignore[index]
        assert dict(value) == before
        for item in value.values():
            assert_read_only(item)
    elif isinstance(value, list):
        before_items = list(value)
        with pytest.raises(TypeError, match="read-only"):
            value.append(1)
        assert list(value) == before_items
        for item in value:
            assert_read_only(item)
