"""Reading an Anthropic Messages request: ``from_anthropic``, and ``read_turn``, which
``from_anthropic_response`` reads an answer with.  The writer is in ``anthropic``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from .._blocks import (
    ContentBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from .._enums import ToolResultState
from .._messages import Msg
from .._reader import (
    as_plain,
    at,
    item,
    json_kind,
    opt_bool,
    opt_str,
    req,
    req_list,
    req_str,
)
from .._role_messages import AssistantMessage, SystemMessage, ToolResultMessage, UserMessage
from .._roles import UserBlock
from .._shown import elided
from ..errors import DecodeError, UnsupportedContentError
from ._anthropic_media import MEDIA_READ_FIELDS, read_media
from ._anthropic_whole_blocks import kept_entries
from ._carry import ContentForm, carried_entry, content_form, nulls, unread
from ._common import ConvertedDict
from ._payloads import nesting_guard, refuse_answer, refuse_misplaced, req_object, sdk_json, storing

__all__ = ["FMT", "READ_FIELDS", "from_anthropic", "read_turn"]

FMT = "anthropic"
# The fields of each block that its reader reads.  Any other (cache_control, citations, an image's
# transformations, a field added after us) is kept verbatim, in the block's metadata["anthropic"] or
# else in its holder's "parts", and written back.  A block of a type not here (a server tool's, one
# added after us) is kept whole, in place (_anthropic_whole_blocks).
READ_FIELDS = {
    "text": ("type", "text"),
    **MEDIA_READ_FIELDS,  # image and document, read in _anthropic_media
    "tool_use": ("type", "id", "name", "input"),
    "tool_result": ("type", "tool_use_id", "content", "is_error"),
    "thinking": ("type", "thinking", "signature"),
    "redacted_thinking": ("type", "data"),
}
# Block fields an answer's model_dump() writes as null when unset, which a request's block cannot hold
# as null (the caller of ToolUseBlockParam, ServerToolUseBlockParam, WebSearchToolResultBlockParam and
# WebFetchToolResultBlockParam is no Optional): read as absent, on a tool_use and on a block kept
# whole alike.  The other nulls it writes (toolset_name, citations, a compaction's content …) a
# request takes, and they go back as they came.
_NOT_NULL = ("caller",)
# The title field of each kind of citation (CitationCharLocationParam's Required[Optional[str]] …).
_CITATION_TITLES = {
    "char_location": "document_title",
    "page_location": "document_title",
    "content_block_location": "document_title",
    "search_result_location": "title",
    "web_search_result_location": "title",
}


def from_anthropic(payload: Any) -> list[Msg]:
    """The messages of ``{"system": ..., "messages": [...]}`` (or of a bare ``messages`` list).
    The SDK's objects may stand wherever an object is expected (an answer's ``content`` as it is).

    A user turn's ``tool_result`` blocks become a :class:`ToolResultMessage` (each
    result named after the call it answers), the rest of the turn a
    :class:`UserMessage`.  A block of a type we read nothing of (a server tool's, such as
    ``server_tool_use``, or one added after us) is kept whole in its message's
    ``metadata["anthropic"]["blocks"]``, where ``to_anthropic`` writes it back in place.  Message ids
    and timestamps are generated.  Malformed input raises :class:`~agentscope_py.DecodeError`
    naming the path.
    """
    if isinstance(payload, ConvertedDict):
        payload = dict(payload)  # what to_anthropic returned: read it like the dict it is
    with nesting_guard():
        return _read_request(payload)


def _read_request(payload: object) -> list[Msg]:
    payload = as_plain(payload)
    if type(payload) is list:
        payload = {"messages": payload}
    request = req_object(payload, "")
    if "messages" not in request:
        refuse_misplaced(request, "")
    out: list[Msg] = []
    if "system" in request:
        out.append(_read_system(request, "", "system", optional=True))
    names: dict[str, str] = {}
    for index, raw in enumerate(req_list(req(request, "messages", ""), "messages")):
        path = item("messages", index)
        obj = req_object(raw, path)
        refuse_answer(obj, path, own="from_anthropic_response")
        role = req_str(req(obj, "role", path), at(path, "role"))
        with storing(path):
            if role == "system":  # instructions from this point of the conversation on
                out.append(_read_system(obj, path, "content"))
            elif role in ("user", "assistant"):
                out.extend(read_turn(obj, path, role, names))
            else:
                raise DecodeError(f"unknown role {elided(role)}; expected user, assistant or system", at(path, "role"))
    return out


def _content_list(obj: Mapping[str, Any], path: str, key: str = "content") -> list[Any]:
    value = as_plain(req(obj, key, path))
    if type(value) is str:
        return [{"type": "text", "text": value}]
    if type(value) is list:
        return value
    raise DecodeError(f"expected a string or an array of blocks, got {json_kind(value)}", at(path, key))


def _metadata(
    parts: Mapping[int, Mapping[str, Any]],
    form: ContentForm | None,
    blocks: Sequence[ContentBlock],
    kept: Mapping[int, Sequence[Mapping[str, Any]]] | None = None,
) -> dict[str, Any]:
    own = {**carried_entry({}, parts, form, blocks), **kept_entries(kept or {}, blocks)}
    return {FMT: own} if own else {}


def _read_system(obj: Mapping[str, Any], path: str, key: str, *, optional: bool = False) -> SystemMessage:
    """The system instructions ``obj[key]``: the request's ``system`` (``optional``), or a system
    message's content."""
    value = req(obj, key, path)
    blocks: list[TextBlock] = []
    parts: dict[int, dict[str, Any]] = {}
    for index, raw in enumerate(_content_list(obj, path, key)):
        block_path = item(at(path, key), index)
        block, extras = _read_text(req_object(raw, block_path), block_path)
        blocks.append(block)
        if extras:
            parts[index] = extras
    form = content_form(value, True, len(blocks), 0 not in parts, optional)
    return SystemMessage(blocks, metadata=_metadata(parts, form, blocks))


def read_turn(obj: Mapping[str, Any], path: str, role: str, names: dict[str, str]) -> list[Msg]:
    """One turn; a user turn splits into runs of tool results and of other blocks.  A block of a type
    we read nothing of is kept whole in the message of the run it stands in (one of other blocks)."""
    content_path = at(path, "content")
    runs: list[tuple[bool, list[ContentBlock], dict[int, dict[str, Any]], dict[int, list[dict[str, Any]]]]] = []
    for index, raw in enumerate(_content_list(obj, path)):
        block_path = item(content_path, index)
        block_obj = req_object(raw, block_path)
        block_type = req_str(req(block_obj, "type", block_path), at(block_path, "type"))
        kept_whole = block_type not in READ_FIELDS
        is_result = block_type == "tool_result" and role == "user"
        if not runs or runs[-1][0] != is_result:
            runs.append((is_result, [], {}, {}))
        _, blocks, parts, kept = runs[-1]
        if kept_whole:
            kept.setdefault(len(blocks), []).append(unread(block_obj, nulls(block_obj, _NOT_NULL)))
            continue
        block, extras = _read_block(block_obj, block_path, block_type, role, names)
        if extras:
            parts[len(blocks)] = extras
        blocks.append(block)
    if not runs:
        runs.append((False, [], {}, {}))
    value = obj["content"]
    out: list[Msg] = []
    for is_result, blocks, parts, kept in runs:
        if is_result:
            out.append(ToolResultMessage(blocks))
            continue
        plain = len(blocks) == 1 and isinstance(blocks[0], TextBlock) and 0 not in parts and not kept
        count = len(blocks) + sum(map(len, kept.values()))
        form = content_form(value, True, count, plain, False) if len(runs) == 1 else None
        metadata = _metadata(parts, form, blocks, kept)
        if role == "assistant":
            out.append(AssistantMessage(blocks, metadata=metadata))
        else:
            # A user turn's blocks other than results are text, images and documents.
            out.append(UserMessage(cast("list[UserBlock]", blocks), metadata=metadata))
    return out


def _read_text(obj: Mapping[str, Any], path: str) -> tuple[TextBlock, dict[str, Any]]:
    block_type = req_str(req(obj, "type", path), at(path, "type"))
    if block_type != "text":
        raise DecodeError(f"expected a block of type 'text', got {elided(block_type)}", at(path, "type"))
    extras = unread(obj, READ_FIELDS["text"])
    if "citations" in extras:
        extras["citations"] = _citations(extras["citations"])
    return TextBlock(req_str(req(obj, "text", path), at(path, "text"))), extras


def _citations(citations: object) -> object:
    """A text block's citations as a request holds them (see ``_citation``); anything but an array is
    kept as it came, as a field we do not read is."""
    value = as_plain(citations)
    if type(value) is not list:
        return citations
    return [_citation(raw) for raw in value]


def _citation(raw: object) -> object:
    """A citation as a request holds it: without the ``file_id`` of an answer's (the Files API file the
    cited document was), which no request citation has, and with its title, which every request
    citation must have, null for an untitled document (``model_dump(exclude_none=True)`` leaves it out)."""
    citation = as_plain(sdk_json(raw))
    if type(citation) is not dict:
        return raw  # kept as it came
    out = {key: value for key, value in citation.items() if key != "file_id"}
    kind = as_plain(out.get("type"))
    title = _CITATION_TITLES.get(kind) if type(kind) is str else None
    if title is not None:
        out.setdefault(title, None)
    return out


_USER_BLOCKS = ("text", "image", "document", "tool_result")
_ASSISTANT_BLOCKS = ("text", "thinking", "redacted_thinking", "tool_use")


def _read_block(
    obj: Mapping[str, Any], path: str, block_type: str, role: str, names: dict[str, str]
) -> tuple[ContentBlock, dict[str, Any]]:
    """A block and the extra fields to keep in its holder's ``parts`` (for blocks without metadata)."""
    allowed = _USER_BLOCKS if role == "user" else _ASSISTANT_BLOCKS
    if block_type not in allowed:
        turn = "a user" if role == "user" else "an assistant"
        raise UnsupportedContentError(
            f"{at(path, 'type')}: a block of type {elided(block_type)} in {turn} turn cannot be represented; "
            f"supported: {', '.join(allowed)}"
        )
    if block_type == "text":
        return _read_text(obj, path)
    if block_type in ("image", "document"):
        return read_media(obj, path, block_type)
    if block_type == "tool_result":
        return _read_tool_result(obj, path, names), {}
    if block_type == "tool_use":
        call_id = req_str(req(obj, "id", path), at(path, "id"))
        name = req_str(req(obj, "name", path), at(path, "name"))
        arguments = req_object(req(obj, "input", path), at(path, "input"))
        names[call_id] = name
        extras = unread(obj, (*READ_FIELDS["tool_use"], *nulls(obj, _NOT_NULL)))
        return ToolUseBlock(call_id, name, arguments, metadata={FMT: carried_entry(extras)} if extras else None), {}
    extras = unread(obj, READ_FIELDS[block_type])
    if block_type == "thinking":
        thinking = req_str(req(obj, "thinking", path), at(path, "thinking"))
        # Null (as some compatible servers write it): thinking nobody signed, which the writer refuses.
        signature = opt_str(req(obj, "signature", path), at(path, "signature"))
        fields = extras if signature is None else {"signature": signature, **extras}
        return ThinkingBlock(thinking, {FMT: carried_entry(fields)} if fields else None), {}
    data = req_str(req(obj, "data", path), at(path, "data"))
    return ThinkingBlock("", {FMT: carried_entry({"type": "redacted_thinking", "data": data, **extras})}), {}


def _read_tool_result(obj: Mapping[str, Any], path: str, names: Mapping[str, str]) -> ToolResultBlock:
    call_id = req_str(req(obj, "tool_use_id", path), at(path, "tool_use_id"))
    is_error = opt_bool(obj.get("is_error"), at(path, "is_error"))
    fields = unread(obj, READ_FIELDS["tool_result"])
    if is_error is False:
        fields["is_error"] = False
    blocks: list[ContentBlock] = []
    parts: dict[int, dict[str, Any]] = {}
    block: ContentBlock
    if "content" in obj:
        content_path = at(path, "content")
        for index, raw in enumerate(_content_list(obj, path)):
            block_path = item(content_path, index)
            block_obj = req_object(raw, block_path)
            block_type = req_str(req(block_obj, "type", block_path), at(block_path, "type"))
            if block_type == "text":
                block, extras = _read_text(block_obj, block_path)
            elif block_type in ("image", "document"):
                block, extras = read_media(block_obj, block_path, block_type)
            else:
                raise UnsupportedContentError(
                    f"{at(block_path, 'type')}: a block of type {elided(block_type)} in a tool result cannot be represented; "
                    "supported: text, image, document"
                )
            blocks.append(block)
            if extras:
                parts[index] = extras
    plain = len(blocks) == 1 and isinstance(blocks[0], TextBlock) and 0 not in parts
    form = content_form(obj.get("content"), "content" in obj, len(blocks), plain, True)
    own = carried_entry(fields, parts, form, blocks)
    state = ToolResultState.ERROR if is_error else ToolResultState.SUCCESS
    return ToolResultBlock(call_id, names.get(call_id), blocks, {FMT: own} if own else None, state)
