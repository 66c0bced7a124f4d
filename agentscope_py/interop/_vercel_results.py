"""Tool results in the Vercel AI SDK's shape: a ``tool-result`` part's ``output``, and the
output list of a tool message as Codebuff writes it.

An output is ``text``/``error-text``, ``json``/``error-json``, ``content`` (text
and media items) or, since AI SDK 6, ``execution-denied``; Codebuff's list holds
``json`` and ``media`` items.  A JSON value is held as its text; the value
itself is carried and written back while the text still reads the same, as is
every other spelling a block can be read from (AI SDK 6's ``image-data`` items,
say, which are written as ``media`` otherwise).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._blocks import (
    ContentBlock,
    DataBlock,
    TextBlock,
    ToolResultBlock,
)
from .._enums import ToolResultState
from .._frozen import thawed
from .._reader import at, item, opt_str, req, req_dict, req_list, req_str
from .._sources import Base64Source, URLSource
from ..errors import DecodeError
from ._carried_fields import RAN_BY_PROVIDER, overlay
from ._frameworks import MEDIA_BLOCKS, Conversion, json_text, same_blocks

__all__ = [
    "ERROR_STATES",
    "TARGET",
    "read_codebuff_result",
    "read_output",
    "render_codebuff_result",
    "write_codebuff_result",
    "write_result_part",
]

TARGET = "the Vercel AI SDK"
#: The states written as an error; they come back as ERROR.
ERROR_STATES = (ToolResultState.ERROR, ToolResultState.INTERRUPTED, ToolResultState.DENIED)


def read_output(value: object, path: str) -> tuple[tuple[ContentBlock, ...], ToolResultState]:
    output = req_dict(value, path)
    kind = req_str(req(output, "type", path), at(path, "type"))
    value_path = at(path, "value")
    blocks: tuple[ContentBlock, ...]
    if kind in ("text", "error-text"):
        blocks = (TextBlock(req_str(req(output, "value", path), value_path)),)
    elif kind in ("json", "error-json"):
        blocks = (TextBlock(json_text(req(output, "value", path), at(path, "value"))),)
    elif kind == "content":
        items = req_list(req(output, "value", path), value_path)
        blocks = tuple(read_output_item(entry, item(value_path, index)) for index, entry in enumerate(items))
    elif kind == "execution-denied":  # AI SDK 6: the user refused the call its approval request asked for
        reason = opt_str(output.get("reason"), at(path, "reason"))
        return (() if reason is None else (TextBlock(reason),)), ToolResultState.DENIED
    else:
        raise DecodeError(
            f"unknown output type {kind!r}; expected text, json, error-text, error-json, content or execution-denied",
            at(path, "type"),
        )
    return blocks, ToolResultState.ERROR if kind.startswith("error") else ToolResultState.SUCCESS


def read_output_item(value: object, path: str) -> ContentBlock:
    entry = req_dict(value, path)
    kind = req_str(req(entry, "type", path), at(path, "type"))
    if kind in ("text", "json"):  # "text" in a content output, "json" in Codebuff's list
        if kind == "text":
            return TextBlock(req_str(req(entry, "text", path), at(path, "text")))
        return TextBlock(json_text(req(entry, "value", path), at(path, "value")))
    if kind in ("media", "image-data", "file-data"):  # the last two: AI SDK 6's spelling of "media"
        media_type = req_str(req(entry, "mediaType", path), at(path, "mediaType"))
        source = Base64Source(media_type, req_str(req(entry, "data", path), at(path, "data")))
        return DataBlock(source, name=opt_str(entry.get("filename"), at(path, "filename")))
    if kind in ("image-url", "file-url"):  # AI SDK 6
        url = req_str(req(entry, "url", path), at(path, "url"))
        return DataBlock(URLSource(url, opt_str(entry.get("mediaType"), at(path, "mediaType"))))
    raise DecodeError(
        f"unknown output part type {kind!r}; expected text, json, media, image-data, file-data, image-url or file-url",
        at(path, "type"),
    )


def read_codebuff_result(layout: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    call_id = req_str(req(layout, "toolCallId", path), at(path, "toolCallId"))
    name = req_str(req(layout, "toolName", path), at(path, "toolName"))
    content_path = at(path, "content")
    entries = req_list(req(layout, "content", path), content_path)
    output = [read_output_item(entry, item(content_path, index)) for index, entry in enumerate(entries)]
    return ToolResultBlock(call_id, name, output, state=ToolResultState.SUCCESS), {}


def write_result_part(
    conversion: Conversion, message_index: int, block_index: int, block: ToolResultBlock, extras: Mapping[str, Any]
) -> dict[str, Any]:
    """A ``tool-result`` part; ``extras``: the fields the block carries."""
    extras = {key: value for key, value in extras.items() if key != RAN_BY_PROVIDER}
    carried_output = extras.get("output")
    denial = isinstance(carried_output, Mapping) and carried_output.get("type") == "execution-denied"

    def render(using: Conversion) -> dict[str, Any]:
        return {
            "type": "tool-result",
            "toolCallId": block.id or "",
            "toolName": block.name or "",
            "output": _write_output(using, message_index, block_index, block, denial=denial),
        }

    return _agreeing(render, conversion, extras, block, _output_reads_as, "output")


def _agreeing(
    render: Callable[[Conversion], dict[str, Any]],
    conversion: Conversion,
    extras: Mapping[str, Any],
    block: ToolResultBlock,
    reads_as: Callable[[object, ToolResultBlock], bool],
    key: str,
) -> dict[str, Any]:
    """The rendering with the carried fields laid over it; the carried spelling of the output (a JSON
    value, AI SDK 6's URL items, say) while it still reads as what the block holds, and then without
    applying the policy to what the carried spelling holds and ours could not."""
    if key in extras:
        rendered = render(Conversion(TARGET, "drop"))
        candidate = overlay({key: thawed(rendered[key])}, {key: extras[key]})
        if reads_as(candidate[key], block):
            rendered[key] = candidate[key]
            return overlay(rendered, extras, ours=(key,))
    return overlay(render(conversion), extras, ours=(key,))


def _output_reads_as(value: object, block: ToolResultBlock) -> bool:
    try:
        blocks, state = read_output(value, "")
    except DecodeError:
        return False
    if state is ToolResultState.DENIED:  # execution-denied says more than an error: only a denial reads so
        return same_blocks(blocks, block.output) and block.state is ToolResultState.DENIED
    return same_blocks(blocks, block.output) and (state is ToolResultState.ERROR) == (block.state in ERROR_STATES)


def _codebuff_reads_as(value: object, block: ToolResultBlock) -> bool:
    try:
        blocks = [read_output_item(entry, "") for entry in req_list(value, "")]
    except DecodeError:
        return False
    return same_blocks(blocks, block.output)


def _write_output(
    conversion: Conversion, message_index: int, block_index: int, block: ToolResultBlock, *, denial: bool = False
) -> dict[str, Any]:
    """``denial``: the result was read as AI SDK 6's ``execution-denied``, written so while it is one."""
    texts = [inner.text for inner in block.output if isinstance(inner, TextBlock)]
    if denial and block.state is ToolResultState.DENIED and len(texts) == len(block.output) <= 1:
        return {"type": "execution-denied", **({"reason": texts[0]} if texts else {})}
    is_error = block.state in ERROR_STATES
    if len(block.output) == 1 and texts:
        return {"type": "error-text" if is_error else "text", "value": texts[0]}
    if is_error:
        # Only a text output says error: the blocks' text, each medium through the policy.
        parts = [
            inner.text if isinstance(inner, TextBlock) else conversion.refuse(message_index, block_index, inner)
            for inner in block.output
        ]
        return {"type": "error-text", "value": "\n".join(part for part in parts if part is not None)}
    items = _output_items(conversion, message_index, block_index, block, text_type="text")
    return {"type": "content", "value": items}


def _codebuff_result(
    conversion: Conversion, message_index: int, block_index: int, block: ToolResultBlock
) -> dict[str, Any]:
    items = _output_items(conversion, message_index, block_index, block, text_type="json")
    return {"toolCallId": block.id or "", "toolName": block.name or "", "content": items}


def _output_items(
    conversion: Conversion, message_index: int, block_index: int, block: ToolResultBlock, *, text_type: str
) -> list[dict[str, Any]]:
    """A result's output as text (or Codebuff json) and base64 media items."""
    items: list[dict[str, Any]] = []
    for inner in block.output:
        source = inner.source if isinstance(inner, MEDIA_BLOCKS) else None
        if isinstance(inner, TextBlock):
            text: str | None = inner.text
        elif isinstance(source, Base64Source):
            items.append({"type": "media", "data": source.data, "mediaType": source.media_type})
            continue
        else:  # a URL, a thought or a nested result: a tool output holds none of them
            text = conversion.refuse(message_index, block_index, inner)
        if text is not None:
            items.append({"type": "text", "text": text} if text_type == "text" else {"type": "json", "value": text})
    return items


def write_codebuff_result(
    conversion: Conversion, message_index: int, block_index: int, block: ToolResultBlock, extras: Mapping[str, Any]
) -> dict[str, Any]:
    """The ``toolCallId``, ``toolName`` and ``content`` of a tool message in Codebuff's shape."""

    def render(using: Conversion) -> dict[str, Any]:
        return _codebuff_result(using, message_index, block_index, block)

    return _agreeing(render, conversion, extras, block, _codebuff_reads_as, "content")


def render_codebuff_result(block: ContentBlock, extras: Mapping[str, Any]) -> dict[str, Any]:
    assert isinstance(block, ToolResultBlock)
    return overlay(_codebuff_result(Conversion(TARGET, "drop"), 0, 0, block), extras)
