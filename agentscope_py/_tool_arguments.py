"""Reading the raw argument text of a tool call.

Models stream a call's arguments as JSON text.  Everything that turns that text
into ``ToolUseBlock.input`` (the event assembler, the provider converters) goes
through here, so they agree on the rule: the text stays in ``content`` as it
came, ``input`` gets the object it holds, and text that holds no JSON object
leaves ``input`` empty with the reason reported, never silently.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["parse_tool_arguments"]


def parse_tool_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """The object ``raw`` holds and ``None``; or ``{}`` and what is wrong with ``raw``."""
    try:
        value = json.loads(raw)
    except ValueError as error:
        return {}, f"not valid JSON ({error})"
    except RecursionError:  # absurdly deep nesting
        return {}, "nested too deeply to parse"
    if not isinstance(value, dict):
        return {}, f"a JSON {type(value).__name__}, not an object"
    return value, None
