"""A tool call's arguments as the formats write them: an object, or the raw text the model wrote,
sent as it came while it still says the call's input (``_tool_arguments`` reads that text)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._blocks import ToolUseBlock
from .._frozen import EMPTY, thawed
from .._tool_arguments import parse_tool_arguments, says_input

__all__ = [
    "arguments_object",
    "arguments_text",
    "parse_arguments",
    "raw_arguments",
    "tool_arguments",
]


def arguments_object(raw: str) -> Mapping[str, Any] | None:
    """The JSON object in ``raw``, or ``None`` when ``raw`` is not one (or one too deep to store)."""
    value, problem = parse_tool_arguments(raw)
    return None if problem else value


def parse_arguments(raw: str) -> Mapping[str, Any]:
    """The arguments object in ``raw``, read-only; empty when it is not a JSON object (``content`` keeps ``raw``)."""
    value = arguments_object(raw)
    return EMPTY if value is None else value


def raw_arguments(block: ToolUseBlock) -> str | None:
    """A call's raw argument text, when it still says what the call's input does: as it came, unless
    the input was changed since (the text then holds another object).  With no input at all the text
    is all there is (arguments known only as raw text, as a call mid-stream has them)."""
    content = block.content
    if content is None:
        return None
    if not block.input or says_input(content, block.input):
        return content
    return None


def tool_arguments(block: ToolUseBlock) -> dict[str, Any] | None:
    """A call's arguments as an object, for the formats that hold them so: its input, or with no input
    the object its raw text holds (none for blank text), as ``raw_arguments`` has it; ``None`` when
    only raw text that holds no JSON object says them."""
    if block.input or block.content is None or not block.content.strip():
        return dict(thawed(block.input))
    value = arguments_object(block.content)
    return None if value is None else dict(thawed(value))


def arguments_text(block: ToolUseBlock) -> str:
    """The raw argument text of a call (see ``raw_arguments``), or its input written compactly."""
    raw = raw_arguments(block)
    if raw is not None:
        return raw
    return json.dumps(dict(block.input), separators=(",", ":"), ensure_ascii=False)
