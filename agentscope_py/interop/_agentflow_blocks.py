"""Reading AgentFlow's content blocks: text, media, data, tool calls and results, reasoning.

A reader returns the block and the fields to remember beside it (how it was
written: a media kind, the key a result was read under), with which the writer
in ``agentflow`` writes it back as it came.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._blocks import ContentBlock, DataBlock, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from .._enums import ToolResultState
from .._reader import as_plain, at, item, opt_bool, opt_str, req, req_dict, req_str
from .._shown import elided
from .._sources import Base64Source, Source, URLSource
from ..errors import DecodeError
from ._frameworks import PartReader, json_text
from ._media_types import check_media_type, fetchable, source_from_url

__all__ = ["MEDIA_KINDS", "READERS", "read_output_quietly", "written_key"]

MEDIA_KINDS = ("image", "audio", "video", "document")


def _read_text(part: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    return TextBlock(req_str(req(part, "text", path), at(path, "text"))), {}


def _read_media_ref(value: object, path: str) -> tuple[Source, str | None, str]:
    """The source, file name and kind of a ``MediaRef``."""
    ref = req_dict(value, path)
    # AgentFlow's models (Python and TypeScript) default the kind to "url" (a missing one is written
    # back missing: the diff notes it absent).
    kind = req_str(ref["kind"], at(path, "kind")) if "kind" in ref else "url"
    mime_type = opt_str(ref.get("mime_type"), at(path, "mime_type"))
    filename = opt_str(ref.get("filename"), at(path, "filename"))
    if kind == "url":
        url = req_str(req(ref, "url", path), at(path, "url"))
        source = source_from_url(url)
        if isinstance(source, Base64Source):  # a data: URL, which AgentFlow allows here
            if not source.media_type:
                check_media_type(mime_type, at(path, "mime_type"))
            return Base64Source(source.media_type or mime_type or "", source.data), filename, kind
        return URLSource(url, mime_type), filename, kind
    if kind == "file_id":  # a provider's file id travels as the URL; the kind is carried
        return URLSource(req_str(req(ref, "file_id", path), at(path, "file_id")), mime_type), filename, kind
    if kind == "data":
        data = req_str(req(ref, "data_base64", path), at(path, "data_base64"))
        check_media_type(mime_type, at(path, "mime_type"))
        return Base64Source(mime_type or "", data), filename, kind
    raise DecodeError(f"unknown media kind {elided(kind)}; expected url, file_id or data", at(path, "kind"))


def _read_media(part: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    source, filename, kind = _read_media_ref(req(part, "media", path), at(path, "media"))
    # The kinds that cannot be told from the source: a file id, inline data as a data: URL, and a URL
    # without a scheme (which, not remembered, would read as a file id from another format).
    remembered = kind == "file_id" or (kind == "url" and not (isinstance(source, URLSource) and fetchable(source)))
    return DataBlock(source, name=filename), {"media": {"kind": kind}} if remembered else {}


def _read_data(part: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    mime_type = req_str(req(part, "mime_type", path), at(path, "mime_type"))
    data = opt_str(part.get("data_base64"), at(path, "data_base64"))
    if data is not None:
        check_media_type(mime_type, at(path, "mime_type"))
        return DataBlock(Base64Source(mime_type, data)), {"type": "data"}
    if part.get("media") is None:
        raise DecodeError("a data block needs data_base64 or media", path)
    source, filename, kind = _read_media_ref(part["media"], at(path, "media"))
    # A null data_base64 (dropped again where the payload had none) tells this layout from the inline
    # one, whose carried fields may hold a media ref too (AgentFlow dumps "media": null there).
    return DataBlock(source, name=filename), {"data_base64": None, "media": {"kind": kind}, "type": "data"}


def _read_tool_call(part: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    call_id = req_str(req(part, "id", path), at(path, "id"))
    name = req_str(req(part, "name", path), at(path, "name"))
    return ToolUseBlock(call_id, name, req_dict(req(part, "args", path), at(path, "args"))), {}


def _read_tool_result(part: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    # AgentFlow's models (Python and TypeScript) say call_id/output; its Messages page says
    # tool_call_id/content.  Where the page's key is in the part, the key read is kept as a hint, so that
    # the renderer writes under it (written_key): the page's when it is there alone, else the models',
    # beside which the page's key is no spelling but a field of its own, carried as it came (as a
    # reasoning block's thinking beside its summary).  AgentFlow's output defaults to null: no output.
    id_key = _read_key(part, "call_id", "tool_call_id")
    output_key = _read_key(part, "output", "content")
    call_id = req_str(req(part, id_key, path), at(path, id_key))
    # Checked before the output is read: a result nested in another's output that fails after its own
    # output was read makes the one above write that output as text, once more for each level.
    is_error = opt_bool(part.get("is_error"), at(path, "is_error"))
    output = _read_output(part.get(output_key), at(path, output_key))
    state = ToolResultState.ERROR if is_error else ToolResultState.SUCCESS
    read_keys = ((id_key, "tool_call_id"), (output_key, "content"))
    hints = {read: part[read] for read, page_key in read_keys if page_key in part}
    return ToolResultBlock(call_id, None, output, state=state), hints


def _read_key(part: Mapping[str, Any], model_key: str, page_key: str) -> str:
    """The key a tool result's field is read from: the models', unless only the page's is there."""
    return model_key if model_key in part or page_key not in part else page_key


def written_key(extras: Mapping[str, Any], model_key: str, page_key: str) -> str:
    """The key a tool result's field is written under: the page's where the result was read from it
    (:func:`_read_key`: the page's key is carried, the models' is not), else the models'."""
    return page_key if page_key in extras and model_key not in extras else model_key


def _read_output(value: object, path: str) -> tuple[ContentBlock, ...]:
    """A tool's output: none for null, text as text, a list of AgentFlow blocks as blocks, any other
    JSON as its text."""
    value = as_plain(value)
    if value is None:
        return ()
    if type(value) is str:
        return (TextBlock(value),)
    if type(value) is list:
        blocks = _output_blocks(value, path)
        if blocks is not None:
            return blocks
    return (TextBlock(json_text(value, path)),)


def _output_blocks(values: list[Any], path: str) -> tuple[ContentBlock, ...] | None:
    """``values`` as blocks, when every one is an AgentFlow block.  Their fields we have no place
    for (the server writes ``annotations``, ``alt_text`` …) are not lost: the result keeps the
    output as it came, and writes it back while its blocks are unchanged."""
    blocks = []
    for index, value in enumerate(values):
        value = as_plain(value)  # a document built in Python: any mapping is an object
        kind = as_plain(value.get("type")) if type(value) is dict else None  # a str subclass too
        reader = READERS.get(kind) if type(kind) is str else None
        if reader is None:
            return None
        try:
            # The block alone: what its rendering misses is the result's to carry (its whole output),
            # and diffing here too would render and diff each level's output once per level above it.
            block, _ = reader(value, item(path, index))
        except DecodeError:
            return None
        blocks.append(block)
    return tuple(blocks)


def _read_reasoning(part: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    # AgentFlow's models say summary (+ details); its Messages page says thinking (+ signature).
    # The hint names the field the text was read from; with both, the other is carried as it came.
    if "summary" not in part and "thinking" in part:
        return ThinkingBlock(req_str(part["thinking"], at(path, "thinking"))), {"thinking": part["thinking"]}
    summary = req_str(req(part, "summary", path), at(path, "summary"))
    return ThinkingBlock(summary), ({"summary": summary} if "thinking" in part else {})


def read_output_quietly(value: object) -> tuple[ContentBlock, ...] | None:
    try:
        return _read_output(value, "")
    except DecodeError:
        return None


READERS: dict[str, PartReader] = {
    "text": _read_text,
    **{kind: _read_media for kind in MEDIA_KINDS},
    "data": _read_data,
    "tool_call": _read_tool_call,
    "remote_tool_call": _read_tool_call,
    "tool_result": _read_tool_result,
    "reasoning": _read_reasoning,
}
