"""Reading the raw argument text of a tool call.

Models stream a call's arguments as JSON text.  Everything that turns that text
into ``ToolUseBlock.input`` (the event assembler, the provider converters) goes
through here, so they agree on the rule: the text stays in ``content`` as it
came, ``input`` gets the object it holds, and text that holds no JSON object
leaves ``input`` empty with the reason reported, never silently.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["parse_tool_arguments"]

_orjson_loads: Callable[[str], Any] | None
try:
    from orjson import loads as _orjson_loads
except ImportError:  # the standard library serves alone
    _orjson_loads = None


def _holds_float(value: Any) -> bool:
    if type(value) is float:
        return True
    if type(value) is dict:
        return any(map(_holds_float, value.values()))
    if type(value) is list:
        return any(map(_holds_float, value))
    return False


def _loads(raw: str) -> Any:
    # orjson parses several times faster, but reads integers beyond 64 bits as floats and
    # refuses what the standard library accepts (NaN, escaped lone surrogates): text it
    # refuses, or whose result holds a float that may be such an integer, is read again
    # exactly by the standard library, so the result never depends on orjson being installed.
    if _orjson_loads is not None:
        try:
            value = _orjson_loads(raw)
        except ValueError:
            pass
        else:
            if not _holds_float(value):
                return value
    return json.loads(raw)


def parse_tool_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """The object ``raw`` holds and ``None``; or ``{}`` and what is wrong with ``raw``."""
    try:
        value = _loads(raw)
    except ValueError as error:
        return {}, f"not valid JSON ({error})"
    except RecursionError:  # absurdly deep nesting
        return {}, "nested too deeply to parse"
    if not isinstance(value, dict):
        return {}, f"a JSON {type(value).__name__}, not an object"
    return value, None
