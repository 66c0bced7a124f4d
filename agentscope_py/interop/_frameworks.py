"""What the AgentFlow, Vercel AI SDK and agent-swarm-kit converters share, but for the carrying
of a format's own fields (``_carried_fields``): reading parts, messages, timestamps, media,
tool calls and results.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, TypeVar

import attrs

from .._blocks import (
    AudioBlock,
    ContentBlock,
    DataBlock,
    ImageBlock,
    ToolResultBlock,
    ToolUseBlock,
    VideoBlock,
)
from .._enums import MsgRole
from .._ids import new_msg_id
from .._messages import Msg
from .._reader import as_plain, at, item, req, req_dict, req_list, req_str
from .._role_messages import AssistantMessage, SystemMessage, ToolResultMessage, UserMessage
from .._roles import ALLOWED_BLOCKS
from .._shown import elided, shown
from .._sources import Base64Source, Source, URLSource
from .._usage import ChatUsage
from ..errors import ArgumentValueError, DecodeError
from ._carried_fields import BOOKKEEPING, carried_form, carry_in_block, diff
from ._carry import fingerprint
from ._media_types import base64_data_url, has_scheme, url_media_type
from ._payloads import nesting_guard, refuse_misplaced, storing
from ._turns import split_turns

__all__ = [
    "EPOCH_SECONDS_LIMIT",
    "MEDIA_BLOCKS",
    "EpochUnit",
    "PartReader",
    "PartRenderer",
    "check_block_for_role",
    "json_text",
    "likely_media_type",
    "make_message",
    "media_type_of",
    "millis_from_timestamp",
    "name_results",
    "own_run",
    "payload_list",
    "read_all",
    "read_epoch",
    "read_part",
    "read_parts",
    "read_role",
    "result_runs",
    "same_blocks",
    "source_from_string",
    "timestamp_from_epoch",
    "written_epoch",
]

_MISSING: Any = object()
_T = TypeVar("_T")


# -- messages -------------------------------------------------------------------

_CLASSES: dict[MsgRole, type[Msg[Any]]] = {
    MsgRole.USER: UserMessage,
    MsgRole.ASSISTANT: AssistantMessage,
    MsgRole.SYSTEM: SystemMessage,
    MsgRole.TOOL: ToolResultMessage,
}


def check_block_for_role(role: MsgRole, block: ContentBlock, kind: str, path: str) -> None:
    """A block read at ``path`` must be one ``role`` may hold; say so with the path when it is not."""
    allowed = ALLOWED_BLOCKS[role]
    if not isinstance(block, allowed):
        wording = "/".join(cls.type for cls in allowed)
        raise DecodeError(
            f"a {role.value} message may only hold {wording} blocks in agentscope_py, got a {elided(kind)} part",
            path,
        )


def make_message(
    role: MsgRole,
    content: Iterable[ContentBlock],
    *,
    id: str | None = _MISSING,
    name: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    timestamp: str | None = None,
    usage: ChatUsage | None = None,
) -> Msg[Any]:
    """The role's message class from exact values; a fresh id unless one is given."""
    return _CLASSES[role]._from_fields(
        new_msg_id() if id is _MISSING else id, name, role, content, metadata, timestamp, usage
    )


# -- timestamps: epoch numbers against Java's "yyyy-MM-dd HH:mm:ss.SSS" local time ---------------

#: The unit of a format's epoch numbers: ``"ms"`` (Codebuff's ``sentAt``), or ``"ms or s"`` (AgentFlow:
#: its TypeScript client writes milliseconds, its Python side seconds), told apart by size.
EpochUnit = Literal["ms", "ms or s"]
#: Below this, in magnitude, an epoch number in "ms or s" is in seconds: 1e11 s is the year 5138, and
#: 1e11 ms is 1973-03-03 (-1e11 ms is 1966-10-31), so only the times between those are ambiguous.
EPOCH_SECONDS_LIMIT = 10**11
_JAVA_FORMAT = "%Y-%m-%d %H:%M:%S"  # then ".SSS"


def timestamp_from_epoch(value: float, path: str, unit: EpochUnit) -> str:
    """An epoch time in ``unit`` as AgentScope writes timestamps."""
    try:
        millis = round(value * 1000) if unit == "ms or s" and abs(value) < EPOCH_SECONDS_LIMIT else round(value)
        seconds, ms = divmod(millis, 1000)
        moment = time.localtime(seconds)
        if not 1 <= moment.tm_year <= 9999:  # beyond what the four-digit Java form can say
            raise ValueError(moment.tm_year)
        # The year by hand: strftime does not pad years below 1000 on every platform.
        return f"{moment.tm_year:04d}{time.strftime(_JAVA_FORMAT[2:], moment)}.{ms:03d}"
    except (OverflowError, OSError, ValueError):
        raise DecodeError(f"timestamp {shown(value)} is out of the range of dates", path) from None


def millis_from_timestamp(timestamp: str, message_index: int) -> int:
    """Epoch milliseconds of a ``yyyy-MM-dd HH:mm:ss.SSS`` local timestamp."""
    try:
        stamp, _, ms = timestamp.partition(".")
        seconds = time.mktime(time.strptime(stamp, _JAVA_FORMAT))
        if len(ms) != 3 or not (ms.isascii() and ms.isdigit()):
            raise ValueError(ms)
    except (ValueError, OverflowError):
        raise ArgumentValueError(
            f"messages[{message_index}].timestamp {elided(timestamp)} is not in AgentScope's "
            "'yyyy-MM-dd HH:mm:ss.SSS' form; fix it or set it to None"
        ) from None
    return int(seconds) * 1000 + int(ms)


# -- tool calls and results ------------------------------------------------------------


def json_text(value: Any, path: str) -> str:
    """A tool's JSON output as the text a TextBlock holds (strings are kept as they are)."""
    if isinstance(value, str):
        return str.__str__(value)
    try:
        return json.dumps(value, ensure_ascii=False, default=_plain_or_refuse)
    except (TypeError, ValueError) as error:  # a value no JSON holds; a structure that holds itself
        raise DecodeError(f"expected a JSON value: {error}", path) from None


def _plain_or_refuse(value: object) -> Any:
    # What json.dumps does not write itself: a mapping, an enum member (see as_plain).
    plain = as_plain(value)
    if plain is value:
        raise TypeError(f"{type(value).__name__} has no JSON form")
    return plain


def name_results(messages: list[Msg[Any]]) -> list[Msg[Any]]:
    """Give each nameless tool result the name of the call it answers (formats that only keep the id):
    the earliest call of the assistant turn before it that has its id and no result yet, as
    ``validate_conversation`` pairs them (two calls of one turn may share an id); a result past
    those (one repeated, or answering an earlier turn), the last named call with its id."""
    waiting: dict[str, deque[str | None]] = {}
    last: dict[str, str] = {}
    names: dict[int, dict[int, str]] = {}  # message index -> block index -> name
    for turn in split_turns(messages):
        if turn.kind == "assistant":
            # A new assistant turn closes the calls before it, as validate_conversation has it: a
            # result after it answers none of them (but a later call that reuses the id).
            waiting.clear()
        for block_index, block in turn.blocks:
            if isinstance(block, ToolUseBlock) and block.id is not None:
                # A nameless call too: a result answering it must not take the name of the next.
                waiting.setdefault(block.id, deque()).append(block.name)
                if block.name is not None:
                    last[block.id] = block.name
            elif isinstance(block, ToolResultBlock) and block.id is not None:
                pending = waiting.get(block.id)
                name = pending.popleft() if pending else last.get(block.id)
                if block.name is None and name is not None:
                    names.setdefault(turn.message_index, {})[block_index] = name
    out = list(messages)
    for index, named in names.items():
        content = list(out[index].content)
        for block_index, name in named.items():
            result = content[block_index]
            assert isinstance(result, ToolResultBlock)
            content[block_index] = result.with_id_and_name(result.id, name)
        out[index] = out[index].with_content(content)
    return out


Run = list[tuple[int, ContentBlock]]


def result_runs(message: Msg[Any], keep_inline: frozenset[str | None] = frozenset()) -> list[tuple[bool, Run]]:
    """The message's ``(index, block)`` pairs cut into runs: ``(True, run)`` for tool results,
    ``(False, run)`` for the rest, in order.  Results answering a call in ``keep_inline`` count
    as the rest.  An empty message is one empty run (of results for a TOOL message)."""
    runs: list[tuple[bool, Run]] = []
    for index, block in enumerate(message.content):
        is_result = isinstance(block, ToolResultBlock) and block.id not in keep_inline
        if runs and runs[-1][0] == is_result:
            runs[-1][1].append((index, block))
        else:
            runs.append((is_result, [(index, block)]))
    return runs or [(message.role is MsgRole.TOOL, [])]


def own_run(message: Msg[Any], runs: list[tuple[bool, Run]]) -> int:
    """The index of the run that gets the message's own fields: its first run of its own kind
    (results for a TOOL message, the rest otherwise), else its first run."""
    of_results = message.role is MsgRole.TOOL
    return next((index for index, (is_result, _) in enumerate(runs) if is_result == of_results), 0)


def same_blocks(a: Iterable[ContentBlock], b: Iterable[ContentBlock]) -> bool:
    """Equal blocks, ignoring DataBlock ids (fresh each time a payload is read)."""
    return [_without_id(block) for block in a] == [_without_id(block) for block in b]


def _without_id(block: ContentBlock) -> ContentBlock:
    return attrs.evolve(block, id="-") if isinstance(block, DataBlock) else block


# -- reading parts ---------------------------------------------------------------

#: Reads one part (a dict, at a path) into a block and the spelling hints its renderer needs.
PartReader = Callable[[dict[str, Any], str], "tuple[ContentBlock, dict[str, Any]]"]
#: Renders a block as a part, given the fields it carries.
PartRenderer = Callable[[ContentBlock, Mapping[str, Any]], "dict[str, Any]"]


def read_role(raw: Mapping[str, Any], path: str, roles: Mapping[str, MsgRole]) -> MsgRole:
    name = req_str(req(raw, "role", path), at(path, "role"))
    role = roles.get(name)
    if role is None:
        raise DecodeError(f"unknown role {elided(name)}; expected one of {', '.join(roles)}", at(path, "role"))
    return role


def read_part(reader: PartReader, render: PartRenderer, part: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    """A block and what it carries: the hints its reader noted plus what its rendering misses."""
    block, hints = reader(part, path)
    extras = diff(render(block, hints), part)
    # A hint is the reader's own bookkeeping, or a field of the part as it came (a spelling to keep),
    # laid over what the rendering misses of the same object.
    for key, value in hints.items():
        extras[key] = value if key in BOOKKEEPING else _merged(extras.get(key), carried_form(value))
    return block, extras


def _merged(have: Any, value: Any) -> Any:
    """Two carried values of one field, ``value`` over ``have``, objects merged key by key."""
    if isinstance(have, Mapping) and isinstance(value, Mapping):
        return {**have, **{key: _merged(have.get(key), inner) for key, inner in value.items()}}
    return value


def read_parts(
    fmt: str,
    role: MsgRole,
    values: object,
    path: str,
    readers: Mapping[str, PartReader],
    render: PartRenderer,
    *,
    keep_unknown: bool,
) -> tuple[list[ContentBlock], dict[str, Any], dict[str, str], dict[str, Any]]:
    """The blocks of a content list, the carried fields of those without metadata (by index), the
    fingerprint of the block each of those was read into (by index: see ``part_extras``), and
    (``keep_unknown``) the parts of types we have no block for, whole, by index."""
    blocks: list[ContentBlock] = []
    parts: dict[str, Any] = {}
    part_of: dict[str, str] = {}
    whole: dict[str, Any] = {}
    for index, value in enumerate(req_list(values, path)):
        part_path = item(path, index)
        part = req_dict(value, part_path)
        kind = req_str(req(part, "type", part_path), at(part_path, "type"))
        reader = readers.get(kind)
        if reader is None:
            if not keep_unknown:
                raise DecodeError(f"unknown part type {elided(kind)}; expected one of {', '.join(readers)}", at(part_path, "type"))
            whole[str(index)] = part
            continue
        block, extras = read_part(reader, render, part, part_path)
        check_block_for_role(role, block, kind, part_path)
        carrier = carry_in_block(block, fmt, extras)
        if carrier is None and extras:
            parts[str(index)] = extras
            part_of[str(index)] = fingerprint(block)
        blocks.append(carrier or block)
    return blocks, parts, part_of, whole


def read_epoch(raw: Mapping[str, Any], key: str, path: str, unit: EpochUnit) -> str | None:
    """The epoch number under ``key`` (absent or null: ``None``), in ``unit``, as an AgentScope timestamp."""
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DecodeError("expected an epoch number or null", at(path, key))
    return timestamp_from_epoch(value, at(path, key), unit)


def written_epoch(timestamp: str | None, carried_value: object, message_index: int, unit: EpochUnit) -> int | float | None:
    """The epoch number to write for ``timestamp``: the carried one while it still reads the same
    (seconds, or finer than milliseconds, as it came), else milliseconds; in ``"ms or s"``, seconds
    for the times whose milliseconds would read as seconds (1966-10-31 to 1973-03-03)."""
    if timestamp is None:
        return None
    if isinstance(carried_value, (int, float)) and not isinstance(carried_value, bool):
        try:
            if timestamp_from_epoch(carried_value, "", unit) == timestamp:
                return carried_value
        except DecodeError:
            pass
    millis = millis_from_timestamp(timestamp, message_index)
    if unit == "ms or s" and abs(millis) < EPOCH_SECONDS_LIMIT:
        return millis // 1000 if millis % 1000 == 0 else millis / 1000
    return millis


# -- media ---------------------------------------------------------------------

# The first base64 characters of the image formats models accept.
_IMAGE_SIGNATURES = (("iVBORw0KGgo", "image/png"), ("/9j/", "image/jpeg"), ("R0lGOD", "image/gif"), ("UklGR", "image/webp"))


def source_from_string(text: str, media_type: str | None) -> Source:
    """Media given as one string: a ``data:…;base64,`` URL, another URL, or bare base64.

    Bare base64 of unknown type gets ``media_type`` ``""`` (unknown), which is
    written back as no type at all.
    """
    inline = base64_data_url(text)
    if inline is not None:
        declared, data = inline
        return Base64Source(declared or media_type or "", data)
    if has_scheme(text):
        return URLSource(text, media_type)
    return Base64Source(media_type or "", text)


#: The blocks that hold media.
MEDIA_BLOCKS = (DataBlock, ImageBlock, AudioBlock, VideoBlock)


def media_type_of(source: Source) -> str | None:
    """The media type a source declares; ``None`` when it declares none."""
    if isinstance(source, URLSource):
        return source.mime_type
    assert isinstance(source, Base64Source)
    return source.media_type or None  # "" is how we hold "no type given"


def sniff_image_type(data: str) -> str:
    """The media type of base64 image bytes, from their first characters; ``""`` when unknown."""
    for prefix, media_type in _IMAGE_SIGNATURES:
        if data.startswith(prefix):
            return media_type
    return ""


def likely_media_type(source: Source) -> str | None:
    """The media type ``source`` declares, or else the one its URL's file extension or its data's
    first bytes suggest; ``None`` when none of them tells (a compressed ``.tar.gz`` is not a tar)."""
    declared = media_type_of(source)
    if declared is not None:
        return declared
    if isinstance(source, URLSource):
        return url_media_type(source.url)
    assert isinstance(source, Base64Source)
    return sniff_image_type(source.data) or None


def payload_list(payload: object) -> list[Any]:
    """The top-level list of messages (a :class:`Converted` result is a list too)."""
    if isinstance(payload, list):
        return list(payload)
    refuse_misplaced(payload, "messages")
    return req_list(payload, "messages")


def read_all(payload: object, read: Callable[[Any, str], _T]) -> list[_T]:
    """Read every element of a payload list with ``read(value, path)``; paths start at ``messages``."""
    out = []
    with nesting_guard():
        for index, value in enumerate(payload_list(payload)):
            path = item("messages", index)
            with storing(path):
                out.append(read(value, path))
    return out
