"""AgentFlow (10xscale) ``Message`` lists, as its Python server and TypeScript client write them.

AgentFlow messages are close to ours: any role may hold any block, so a
message maps to one message and a block to one block, but for a TOOL message
holding several results, which is written as one AgentFlow message per result
(AgentFlow answers one call per tool message) and read back as one.  What
AgentFlow has and we don't (annotations on text, ``MediaRef`` details, ``delta``,
``raw``, token counts beyond ours, annotation and error blocks) is carried under
``metadata["agentflow"]`` and written back, so ``to_agentflow(from_agentflow(p)) == p``.
See ``docs/interop/agentflow.md`` for the mapping.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._blocks import (
    AudioBlock,
    ContentBlock,
    DataBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    VideoBlock,
)
from .._enums import MsgRole
from .._frozen import copy_json_value, thawed
from .._messages import Msg
from .._reader import at, item, opt_dict, opt_int, opt_str, req, req_dict
from .._sources import Base64Source, Source, URLSource
from .._usage import ChatUsage
from ..errors import DecodeError
from ._agentflow_blocks import READERS, read_output_quietly, written_key
from ._agentflow_fields import (
    MISSING,
    OURS,
    Part,
    read_ours,
    read_timestamp,
    written_ours,
    written_timestamp,
)
from ._call_arguments import tool_arguments
from ._carried_fields import (
    BLOCKS,
    LAYOUT,
    PART_OF,
    PARTS,
    carried,
    carried_value,
    diff,
    overlay,
    part_extras,
    with_carried,
)
from ._carry import digest, position
from ._common import (
    ERROR_STATES,
    NOT_AN_OBJECT,
    Conversion,
    Converted,
    OnUnsupported,
    as_message_list,
    file_id_hint,
    media_type_hint,
)
from ._frameworks import (
    likely_media_type,
    make_message,
    media_type_of,
    name_results,
    payload_list,
    read_parts,
    read_role,
    same_blocks,
)
from ._media_types import data_url, fetchable, media_type_essence, unusable_media_type
from ._payloads import nesting_guard, read_usage, storing

__all__ = ["from_agentflow", "to_agentflow"]

_FMT = "agentflow"
_TARGET = "AgentFlow"

_ROLES = {"user": MsgRole.USER, "assistant": MsgRole.ASSISTANT, "system": MsgRole.SYSTEM, "tool": MsgRole.TOOL}
_ROLE_NAMES = {role: name for name, role in _ROLES.items()}
# LAYOUT of a TOOL message read from one AgentFlow message holding several results: written so again.
_ONE_MESSAGE = "one message"
# What AgentFlow's Anthropic converter sets on a call the provider ran itself, which it leaves out of
# tools_calls (or AgentFlow's tool node would run it again).
_RAN_BY_PROVIDER = "server_tool"

#: A message read, the AgentFlow message it was read from, and that one's path.
_Read = tuple[Msg[Any], Mapping[str, Any], str]


# == reading =========================================================================


def from_agentflow(payload: Any) -> list[Msg]:
    """Messages from a list of AgentFlow ``Message`` dicts, one for each, but for the
    tool messages :func:`to_agentflow` split one TOOL message into, which are joined
    back into it.

    Raises :class:`~agentscope_py.errors.DecodeError` naming the path of anything
    malformed (``messages[3].content[1].media.url``), including a block the role
    may not hold in agentscope_py (a tool call in a user message).
    """
    read: list[_Read] = []
    with nesting_guard():
        for index, value in enumerate(payload_list(payload)):
            path = item("messages", index)
            with storing(path):
                read.append((_read_message(value, path), value, path))
        return name_results(_joined(read))


def _read_message(value: object, path: str, part: Part | None = None) -> Msg[Any]:
    """The message of an AgentFlow message; ``part``: read as that part of a split message, so that
    its place in ``metadata["agentscope"]`` is rendered, not carried."""
    raw = req_dict(value, path)
    role = read_role(raw, path, _ROLES)
    values = req(raw, "content", path)
    blocks, parts, part_of, whole = read_parts(
        _FMT, role, values, at(path, "content"), READERS, _render_plain, keep_unknown=True
    )
    message_id = raw.get("message_id")
    if isinstance(message_id, int) and not isinstance(message_id, bool):
        number = message_id
        try:
            message_id = str(number)  # AgentFlow's Python side allows ints; the int itself is carried
        except ValueError:  # past Python's limit on digits to print
            raise DecodeError(
                f"expected a string or an integer, got an integer of {number.bit_length():,} bits, too long to "
                "write as text",
                at(path, "message_id"),
            ) from None
    their_metadata = opt_dict(raw.get("metadata"), at(path, "metadata")) or {}
    name, own, _ = read_ours(their_metadata.get(OURS, MISSING))
    metadata = {k: v for k, v in their_metadata.items() if k not in (_FMT, OURS)}
    if own is not MISSING:
        metadata[OURS] = own
    plain = make_message(
        role,
        blocks,
        id=opt_str(message_id, at(path, "message_id")),
        name=name,
        metadata=metadata,
        timestamp=read_timestamp(raw, path),
        usage=_read_usage(raw.get("usages"), at(path, "usages")),
    )
    fields = {k: v for k, v in raw.items() if k != "content"}
    extras = diff(_write_fields(plain, 0, {}, values, part), fields)
    if parts:
        extras[PARTS], extras[PART_OF] = parts, part_of
    if whole:  # annotation and error blocks, or types newer than this converter
        extras[BLOCKS] = whole
    if role is MsgRole.TOOL and sum(isinstance(block, ToolResultBlock) for block in blocks) > 1:
        extras[LAYOUT] = _ONE_MESSAGE
    return plain.with_metadata(with_carried(plain.metadata, _FMT, extras))


def _joined(read: list[_Read]) -> list[Msg[Any]]:
    """The messages read, each run of the parts of a split TOOL message joined into that message."""
    out: list[Msg[Any]] = []
    index = 0
    while index < len(read):
        run = _run(read, index)
        joined = _join(run) if run else None
        out.append(read[index][0] if joined is None else joined)
        index += 1 if joined is None else len(run)
    return out


def _run(read: list[_Read], index: int) -> list[_Read]:
    """The parts of a split message from ``index`` on, all of them and in order; else none."""
    first = _part_of(read[index][1])
    if first is None or first[0] != 1 or first[1] > len(read) - index:
        return []
    count = first[1]
    # Looked at one by one, up to the first that does not follow: a count a payload claims costs nothing.
    for number in range(2, count + 1):
        if _part_of(read[index + number - 1][1]) != (number, count):
            return []
    return read[index : index + count]


def _part_of(raw: Mapping[str, Any]) -> Part | None:
    """The place a tool message (one read without error) says it has among the parts of a split one."""
    metadata = raw.get("metadata")
    if raw["role"] != "tool" or not isinstance(metadata, Mapping):
        return None
    return read_ours(metadata.get(OURS, MISSING))[2]


def _join(run: list[_Read]) -> Msg[Any] | None:
    """The message that was split into the messages of ``run``; ``None`` when writing that message would
    not give them back exactly (AgentFlow changed one of them, or something else wrote them)."""
    _, first_raw, first_path = run[0]
    first = _read_message(first_raw, first_path, (1, len(run)))
    parts = [first, *(message for message, _, _ in run[1:])]
    # The message's fields are the first part's; each part's content bookkeeping is keyed by the place
    # of its blocks in its own content, which is their place in the whole past the parts before it.
    extras = {k: v for k, v in carried(first.metadata, _FMT).items() if k not in (PARTS, PART_OF, BLOCKS)}
    offset = 0
    for message, (_, raw, _) in zip(parts, run, strict=True):
        for entry in (PARTS, PART_OF, BLOCKS):
            found = carried(message.metadata, _FMT).get(entry)
            if isinstance(found, Mapping):
                extras.setdefault(entry, {}).update({str(offset + int(key)): value for key, value in found.items()})
        offset += len(raw["content"])
    metadata = {k: v for k, v in first.metadata.items() if k != _FMT}
    content = [block for message in parts for block in message.content]
    joined = first.__replace__(content=content, metadata=with_carried(metadata, _FMT, extras))
    written = _write_message(Conversion(_TARGET, "drop"), 0, joined)
    return joined if digest(written) == digest([raw for _, raw, _ in run]) else None


def _render_plain(block: ContentBlock, extras: Mapping[str, Any]) -> dict[str, Any]:
    # Every block a reader makes can be written, so this conversion never applies its policy.
    return _write_block(Conversion(_TARGET, "drop"), 0, 0, block, extras) or {}


def _read_usage(value: object, path: str) -> ChatUsage | None:
    usages = opt_dict(value, path)
    if usages is None:
        return None

    def count(key: str) -> int:
        return opt_int(usages.get(key), at(path, key)) or 0

    return read_usage(path, count("prompt_tokens"), count("completion_tokens"), count("cache_read_input_tokens"))


# == writing =========================================================================


def to_agentflow(messages: Iterable[Msg], *, on_unsupported: OnUnsupported = "raise") -> Converted:
    """AgentFlow ``Message`` dicts for ``messages``: one for each, but for a TOOL message
    holding several tool results, which becomes one tool message for each result (AgentFlow
    answers one call for each tool message), marked so that :func:`from_agentflow` joins them.

    A block AgentFlow cannot hold (a :class:`~agentscope_py.HintBlock`, a video
    with no source, a call whose arguments are not a JSON object) raises
    :class:`~agentscope_py.errors.UnsupportedContentError`, unless
    ``on_unsupported`` is ``"drop"`` or ``"text"``; ``.notes`` of the result
    records each such choice, by the message's place in ``messages``.
    """
    conversion = Conversion(_TARGET, on_unsupported)
    out = [
        written
        for index, message in enumerate(as_message_list(messages))
        for written in _write_message(conversion, index, message)
    ]
    return Converted(out, conversion.notes)


def _write_message(conversion: Conversion, message_index: int, message: Msg[Any]) -> list[dict[str, Any]]:
    """The AgentFlow message for ``message``, or the messages of its parts (see :func:`_split`)."""
    extras = carried(message.metadata, _FMT)
    whole = extras.get(BLOCKS)
    kept = whole.items() if isinstance(whole, Mapping) else ()
    # Blocks the reader kept are objects; anything else in edited metadata is no block to write.
    placed = [(position(key), value) for key, value in kept if isinstance(value, Mapping)]
    pending = {index: value for index, value in placed if index is not None}
    content: list[dict[str, Any]] = []
    results: list[int] = []  # where in content the results are

    def place_carried_blocks() -> None:
        while len(content) in pending:
            content.append(thawed(pending.pop(len(content))))

    for block_index, block in enumerate(message.content):
        place_carried_blocks()
        part = _write_block(conversion, message_index, block_index, block, part_extras(extras, len(content), block))
        if part is not None:
            if isinstance(block, ToolResultBlock):
                results.append(len(content))
            content.append(part)
    place_carried_blocks()
    content.extend(thawed(pending[index]) for index in sorted(pending))
    if message.role is not MsgRole.TOOL or len(results) < 2 or extras.get(LAYOUT) == _ONE_MESSAGE:
        return [{**_write_fields(message, message_index, extras, content), "content": content}]
    groups = _split(content, results)
    return [
        {**_write_fields(message, message_index, extras, group, (number, len(groups))), "content": group}
        for number, group in enumerate(groups, 1)
    ]


def _split(content: list[dict[str, Any]], results: list[int]) -> list[list[dict[str, Any]]]:
    """The content of a TOOL message cut after each result: a part for each, holding the blocks since
    the result before it (AgentFlow's tool node puts an error block before its result so), and the
    last part also the blocks after the last result."""
    ends = [*(index + 1 for index in results[:-1]), len(content)]
    return [content[start:end] for start, end in zip([0, *ends[:-1]], ends, strict=True)]


def _write_fields(
    message: Msg[Any],
    message_index: int,
    extras: Mapping[str, Any],
    content: Sequence[Mapping[str, Any]],
    part: Part | None = None,
) -> dict[str, Any]:
    """Every message field but ``content`` (the AgentFlow blocks written for it, of which
    ``tools_calls`` tells); ``part``: of that part of the message split around its results."""
    assert message.role is not None
    metadata = {k: v for k, v in message.metadata.items() if k not in (_FMT, OURS)}
    ours = written_ours(message.name, message.metadata.get(OURS, MISSING), part)
    if ours is not MISSING:
        metadata[OURS] = ours
    number = 1 if part is None else part[0]
    out: dict[str, Any] = {
        "message_id": _written_id(message.id, extras.get("message_id")) if number == 1 else _part_id(message.id, number),
        "role": _ROLE_NAMES[message.role],
        "timestamp": written_timestamp(message.timestamp, extras.get("timestamp"), message_index),
        "metadata": thawed(metadata),
    }
    if message.usage is not None and number == 1:  # on one part only: AgentFlow would count it for each
        usage = message.usage
        out["usages"] = {
            "completion_tokens": usage.output_tokens,
            "prompt_tokens": usage.input_tokens,
            "total_tokens": usage.total_tokens,
            "reasoning_tokens": 0,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": usage.cached_tokens,
        }
    if message.role is MsgRole.ASSISTANT:
        # As AgentFlow's model converters fill them for the turns they read; its tool node runs the
        # calls in tools_calls, not those in the content.  A carried value (Gemini's thought_signature
        # in tools_calls, a reasoning joined otherwise) goes back only while these are what we wrote
        # when reading it, so never for calls or thinking since edited (overlay).
        calls = _tools_calls(content)
        if calls:
            out["tools_calls"] = calls
        thinking = [block.thinking for block in message.content if isinstance(block, ThinkingBlock)]
        if thinking:
            out["reasoning"] = "\n".join(thinking)
    fields = {k: v for k, v in extras.items() if k not in (PARTS, PART_OF, BLOCKS, LAYOUT)}
    return overlay(out, fields)


def _part_id(message_id: str | None, number: int) -> str | None:
    # Distinct ids: AgentFlow's stores key messages by id.
    return None if message_id is None else f"{message_id}-{number}"


def _tools_calls(content: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """AgentFlow's ``tools_calls`` for the calls among the AgentFlow blocks of ``content``, as its
    Anthropic and Google converters write them (its OpenAI ones keep the provider's argument text).
    Not the calls the provider ran (``tool_type`` ``"server_tool"``), nor ``remote_tool_call`` blocks:
    those its tool node writes, into a tool message, for the client to run."""
    calls = []
    for part in content:
        if part.get("type") == "tool_call" and part.get("tool_type") != _RAN_BY_PROVIDER:
            # Copied as stored: the args of a payload being read may hold any mapping or sequence.
            arguments = json.dumps(thawed(copy_json_value(part.get("args", {}))))
            calls.append({"id": part.get("id"), "type": "function", "function": {"name": part.get("name"), "arguments": arguments}})
    return calls


def _written_id(message_id: str | None, carried_id: object) -> object:
    # An int id read from AgentFlow went into Msg.id as text; it goes back as the int while they agree.
    if isinstance(carried_id, int) and not isinstance(carried_id, bool) and str(carried_id) == message_id:
        return carried_id
    return message_id


def _write_block(
    conversion: Conversion,
    message_index: int,
    block_index: int,
    block: ContentBlock,
    extras: Mapping[str, Any],
    output_index: int | None = None,
) -> dict[str, Any] | None:
    """The AgentFlow block for ``block``, or its stand-in (or ``None``) when AgentFlow cannot hold it.

    ``extras`` are the block's carried fields: given for a block without metadata (text,
    media), or the hints of a block being read; the others also carry theirs in their metadata.
    """
    if isinstance(block, (ThinkingBlock, ToolUseBlock, ToolResultBlock)):
        extras = {**carried(block.metadata, _FMT), **extras}
    if isinstance(block, TextBlock):
        return overlay({"type": "text", "text": block.text}, extras)
    if isinstance(block, ThinkingBlock):
        return _write_reasoning(block, extras)
    if (
        isinstance(block, (DataBlock, ImageBlock, AudioBlock, VideoBlock))
        and block.source is not None
        and unusable_media_type(block.source) is None
    ):
        media = extras.get("media")
        if fetchable(block.source) or (isinstance(media, Mapping) and media.get("kind") in ("file_id", "url")):
            return _write_media(block, block.source, extras)
    if isinstance(block, ToolUseBlock):
        args = tool_arguments(block)
        if args is not None:
            # AgentFlow requires both as strings: a call without them goes with "".
            rendered = {"type": "tool_call", "id": block.id or "", "name": block.name or "", "args": args}
            return overlay(rendered, extras)
    if isinstance(block, ToolResultBlock):
        return _write_tool_result(conversion, message_index, block_index, block, extras)
    why = NOT_AN_OBJECT if isinstance(block, ToolUseBlock) else ""
    hint = file_id_hint(block) + media_type_hint(block)
    text = conversion.refuse(message_index, block_index, block, output_index, why, hint)
    return None if text is None else {"type": "text", "text": text}


def _write_reasoning(block: ThinkingBlock, extras: Mapping[str, Any]) -> dict[str, Any]:
    # A carried thinking is the text's spelling unless a carried summary says the text was read from there.
    key = "thinking" if "thinking" in extras and "summary" not in extras else "summary"
    return overlay({"type": "reasoning", key: block.thinking}, extras)


def _write_media(
    block: DataBlock | ImageBlock | AudioBlock | VideoBlock, source: Source, extras: Mapping[str, Any]
) -> dict[str, Any]:
    media_type = media_type_of(source)
    name = block.name if isinstance(block, DataBlock) else None
    if extras.get("type") == "data" and isinstance(source, Base64Source) and "data_base64" not in extras:
        return overlay({"type": "data", "mime_type": source.media_type, "data_base64": source.data}, extras)
    media_extras = extras.get("media")
    kind = media_extras.get("kind") if isinstance(media_extras, Mapping) else None
    ref: dict[str, Any]
    if isinstance(source, URLSource):
        ref = {"kind": "file_id", "file_id": source.url} if kind == "file_id" else {"kind": "url", "url": source.url}
    else:
        assert isinstance(source, Base64Source)
        ref = {"kind": "url", "url": data_url(source)} if kind == "url" else {"kind": "data", "data_base64": source.data}
    if media_type is not None:
        ref["mime_type"] = media_type
    if name is not None:
        ref["filename"] = name
    if extras.get("type") == "data":
        return overlay({"type": "data", "mime_type": media_type or "", "media": ref}, extras)
    return overlay({"type": _media_kind(block, source), "media": ref}, extras)


def _media_kind(block: ContentBlock, source: Source) -> str:
    """The AgentFlow block for media, by the type its source declares or else suggests: an image read
    from OpenAI or Anthropic by URL declares none."""
    if not isinstance(block, DataBlock):
        return block.type  # image, audio, video: the same names in AgentFlow
    major = media_type_essence(likely_media_type(source) or "").partition("/")[0]
    return major if major in ("image", "audio", "video") else "document"


def _write_tool_result(
    conversion: Conversion, message_index: int, block_index: int, block: ToolResultBlock, extras: Mapping[str, Any]
) -> dict[str, Any]:
    id_key = written_key(extras, "call_id", "tool_call_id")
    output_key = written_key(extras, "output", "content")
    carried_output = carried_value(extras.get(output_key))
    carried_blocks = read_output_quietly(carried_output) if output_key in extras else None
    output: Any
    if carried_blocks is not None and same_blocks(carried_blocks, block.output):
        output = thawed(carried_output)  # JSON output: written as the value it was while its text is unchanged
    elif not block.output:
        output = None  # AgentFlow's default: no output
    elif len(block.output) == 1 and isinstance(block.output[0], TextBlock):
        output = block.output[0].text
    else:
        output = []
        for inner_index, inner in enumerate(block.output):
            part = _write_block(conversion, message_index, block_index, inner, {}, inner_index)
            if part is not None:
                output.append(part)
    is_error = block.state in ERROR_STATES
    # The status as AgentFlow's tool node and its TypeScript client write it.  A carried one (null, left
    # out, or contradicting is_error) goes back only while is_error is what it was read with (overlay).
    status = "failed" if is_error else "completed"
    rendered = {"type": "tool_result", id_key: block.id or "", output_key: output, "is_error": is_error, "status": status}
    return overlay(rendered, extras)
