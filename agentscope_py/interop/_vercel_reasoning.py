"""Reasoning parts, and the Anthropic thinking they stand for.

The AI SDK's Anthropic provider sends a ``reasoning`` part as a ``thinking``
block when its ``providerOptions.anthropic`` holds a ``signature``, else as a
``redacted_thinking`` block when it holds ``redactedData``
(convert-to-anthropic-messages-prompt.ts).  Those are the fields ``from_anthropic``
keeps in a ``ThinkingBlock``'s ``metadata["anthropic"]``: they are read into it
and written from it, so that a thought goes from either format to the other
whole, and one whose text Anthropic redacted is never written as an empty
reasoning part that says nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._blocks import ContentBlock, ThinkingBlock
from .._reader import at, req, req_str
from ._carried_fields import carried, overlay

__all__ = ["read_reasoning", "reasoning_part"]

_ANTHROPIC = "anthropic"


def read_reasoning(part: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    thinking = _anthropic_thinking(part.get("providerOptions"))
    text = req_str(req(part, "text", path), at(path, "text"))
    return ThinkingBlock(text, {_ANTHROPIC: thinking} if thinking else None), {}


def _anthropic_thinking(options: object) -> dict[str, Any]:
    """What ``from_anthropic`` keeps of the block the Anthropic provider sends for a reasoning part
    of these ``providerOptions`` (the signature first, as the provider takes it); empty for none."""
    anthropic = options.get(_ANTHROPIC) if isinstance(options, Mapping) else None
    if not isinstance(anthropic, Mapping):
        return {}
    signature, data = anthropic.get("signature"), anthropic.get("redactedData")
    if isinstance(signature, str):
        return {"signature": signature}
    if isinstance(data, str):
        return {"type": "redacted_thinking", "data": data}
    return {}


def reasoning_part(block: ThinkingBlock, extras: Mapping[str, Any]) -> dict[str, Any]:
    """The part for ``block``; ``extras``: the fields it carries."""
    part: dict[str, Any] = {"type": "reasoning", "text": block.thinking}
    anthropic = carried(block.metadata, _ANTHROPIC)
    # The block to_anthropic would write: redacted when it was, else signed.
    if anthropic.get("type") == "redacted_thinking" and isinstance(anthropic.get("data"), str):
        part["providerOptions"] = {_ANTHROPIC: {"redactedData": anthropic["data"]}}
    elif isinstance(anthropic.get("signature"), str):
        part["providerOptions"] = {_ANTHROPIC: {"signature": anthropic["signature"]}}
    return overlay(part, extras)
