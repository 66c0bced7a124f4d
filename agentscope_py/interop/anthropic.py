"""Anthropic Messages: the ``system`` and ``messages`` arguments of ``client.messages.create``.

``to_anthropic(messages)`` gives ``{"system": ..., "messages": [...]}`` (``system``
only when there is one); ``from_anthropic(payload)`` reads one back.  The mapping,
what travels in ``metadata["anthropic"]`` and what raises are in
``docs/interop/anthropic.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from .._blocks import (
    ContentBlock,
    DataBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from .._enums import ToolResultState
from .._messages import (
    AssistantMessage,
    Msg,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
)
from .._reader import (
    as_plain,
    at,
    item,
    json_kind,
    opt_bool,
    req,
    req_list,
    req_str,
)
from .._roles import UserBlock
from .._shown import elided
from ..errors import DecodeError, UnsupportedContentError
from ._anthropic_media import MEDIA_READ_FIELDS, media_hint, media_part, read_media
from ._anthropic_tool_ids import tool_ids
from ._carry import (
    Carried,
    ContentForm,
    MessageCarried,
    carried,
    content_form,
    nulls,
    tool_arguments,
    unread,
    write_content,
    write_kept,
)
from ._common import (
    ERROR_RESULT,
    Conversion,
    ConvertedDict,
    OnUnsupported,
    as_message_list,
    in_message,
    nesting_guard,
    refuse_misplaced,
    req_object,
    says_nothing,
    sdk_json,
    storing,
)
from ._conversation import ConversationProblem, ProblemKind, check_conversation
from ._turns import Turn, split_turns

__all__ = ["from_anthropic", "to_anthropic"]

_TARGET = "Anthropic Messages"
_FMT = "anthropic"
# The fields of each block that its reader reads.  Any other (cache_control, citations, an image's
# transformations, a field added after us) is kept verbatim, in the block's metadata["anthropic"] or
# else in its holder's "parts", and written back.
_READ_FIELDS = {
    "text": ("type", "text"),
    **MEDIA_READ_FIELDS,  # image and document, read in _anthropic_media
    "tool_use": ("type", "id", "name", "input"),
    "tool_result": ("type", "tool_use_id", "content", "is_error"),
    "thinking": ("type", "thinking", "signature"),
    "redacted_thinking": ("type", "data"),
}
# Block fields an answer's model_dump() writes as null when unset, which a request's block cannot hold
# as null (ToolUseBlockParam's caller is no Optional): read as absent.  The other nulls it writes
# (toolset_name, citations) a request takes, and they go back as they came.
_NOT_NULL = ("caller",)
# The title field of each kind of citation (CitationCharLocationParam's Required[Optional[str]] …).
_CITATION_TITLES = {
    "char_location": "document_title",
    "page_location": "document_title",
    "content_block_location": "document_title",
    "search_result_location": "title",
    "web_search_result_location": "title",
}
# Results in these states are sent with is_error: true.
_ERROR_STATES = (ToolResultState.ERROR, ToolResultState.DENIED, ToolResultState.INTERRUPTED)


# -- writing --------------------------------------------------------------------


def to_anthropic(
    messages: Iterable[Msg], *, on_unsupported: OnUnsupported = "raise", validate: bool = True
) -> ConvertedDict:
    """``{"system": ..., "messages": [...]}`` for ``messages``.

    Leading system messages become ``system``, later ones system messages at their
    place; tool results become ``tool_result`` blocks of the next user turn;
    consecutive turns of one role are merged, as the API requires.  A block
    Anthropic cannot hold (audio, video, a HintBlock, a ThinkingBlock without a
    signature, an image or document in an assistant turn) raises
    :class:`UnsupportedContentError` unless ``on_unsupported`` says ``"drop"`` or
    ``"text"``; the result's ``notes`` list each such block.  With
    ``validate`` a conversation the API would reject with a 400 raises
    :class:`~agentscope_py.ConversationError`; ``repair_conversation`` fixes it.
    """
    conversion = Conversion(_TARGET, on_unsupported)
    messages = as_message_list(messages)
    turns = split_turns(messages)
    writer = _Writer(conversion, tool_ids(messages))
    system: list[Turn] = []
    groups: list[tuple[str, list[Turn]]] = []
    skipped: set[int] = set()
    for turn in turns:
        if turn.kind == "system" and groups and says_nothing(block for _, block in turn.blocks):
            skipped.add(turn.message_index)
            continue  # a late system message without instructions: no empty user turn to make of it
        if turn.kind == "system" and not groups:
            system.append(turn)
            continue
        role: str = "user" if turn.kind == "tool" else turn.kind  # a system message after the first turn is one
        if groups and groups[-1][0] == role and role != "system":  # system messages stay as they were given
            groups[-1][1].append(turn)
        else:
            groups.append((role, [turn]))
    out: dict[str, Any] = {}
    if system:
        # Optional: system messages that say nothing (blank text) leave it out, as the page promises.
        writer.content(out, system, optional=True)
        if "content" in out:
            out["system"] = out.pop("content")
    out["messages"] = []
    empty: list[ConversationProblem] = []
    for role, group in groups:
        message: dict[str, Any] = {"role": role}
        writer.content(message, group)
        out["messages"].append(message)
        if not message["content"]:  # a turn of messages the policy emptied
            kind = ProblemKind.EMPTY_USER_MESSAGE if role == "user" else ProblemKind.EMPTY_ASSISTANT_MESSAGE
            empty.append(ConversationProblem(kind, group[0].message_index))
    if validate:
        # What is written: a turn the policy emptied is refused like any empty turn (found above); a
        # message it emptied within a turn of others is absent, as is a late system message said nothing.
        emptied = {index for index, _ in writer.replaced} - writer.wrote
        check_conversation(messages, _TARGET, writer.replaced, found=empty, omitted=emptied | skipped)
    return ConvertedDict(out, writer.conversion.notes)


class _Writer:
    def __init__(self, conversion: Conversion, tool_ids: Mapping[str, str]) -> None:
        self.conversion = conversion
        self.tool_ids = tool_ids  # the ids the API refuses, and what to write for them
        self.replaced: dict[tuple[int, int], str | None] = {}
        self.wrote: set[int] = set()  # the messages something was written for
        self.carried = MessageCarried(_FMT)

    def content(self, out: dict[str, Any], turns: list[Turn], *, optional: bool = False) -> None:
        """Write the blocks of ``turns`` (one target message, or ``system``) as ``out["content"]``;
        none at all when they write nothing and the field is ``optional``."""
        parts: list[dict[str, Any]] = []
        for turn in turns:
            own = self.carried.of(turn)
            for index, block in turn.blocks:
                if isinstance(block, TextBlock) and not block.text.strip():
                    continue  # blank text says nothing, and the API refuses it ("must contain non-whitespace text")
                part = self._part(turn, index, block, own)
                written = self._or_fallback(part, turn, index, block)
                if part is None:
                    self.replaced[turn.message_index, index] = written[0]["text"] if written else None
                if written:
                    self.wrote.add(turn.message_index)
                parts.extend(written)
        only = turns[0] if len(turns) == 1 else None
        whole = only is not None and only.own and len(only.blocks) == len(only.message.content)
        form = self.carried.of(only).form if whole and only is not None else None
        write_content(out, parts, form, optional=optional)

    def _or_fallback(
        self,
        part: dict[str, Any] | None,
        turn: Turn,
        index: int,
        block: ContentBlock,
        output_index: int | None = None,
        why: str = "",
    ) -> list[dict[str, Any]]:
        """``[part]``, or what the policy makes of a block the target cannot hold (``why``: what makes
        a block of a result's output unfit)."""
        if part is not None:
            return [part]
        if output_index is None:
            why = _unfit(turn.kind, block)
        # Media its kind does not rule out, refused for its data or its URL: say which.
        hint = media_hint(block) if not why and isinstance(block, (DataBlock, ImageBlock)) else ""
        text = self.conversion.refuse(turn.message_index, index, block, output_index, why, hint)
        return [] if text is None else [{"type": "text", "text": text}]

    def _part(self, turn: Turn, index: int, block: ContentBlock, own: Carried) -> dict[str, Any] | None:
        if isinstance(block, ToolResultBlock) and turn.kind == "tool":
            return self._tool_result(turn, index, block)
        if isinstance(block, ToolUseBlock) and turn.kind == "assistant":
            return _tool_use(block, self.tool_ids)
        if isinstance(block, ThinkingBlock) and turn.kind == "assistant":
            return _thinking(block)
        if isinstance(block, (DataBlock, ImageBlock)) and turn.kind != "user":
            return None  # the API takes images and documents from the user only
        return _content_part(block, own.part(index))

    def _tool_result(self, turn: Turn, index: int, result: ToolResultBlock) -> dict[str, Any]:
        own = Carried(result.metadata, _FMT, result.output)
        is_error = result.state in _ERROR_STATES
        parts: list[dict[str, Any]] = []
        for inner_index, block in enumerate(result.output):
            # The API refuses anything but text in an error ("all content must be type 'text' if 'is_error' is true").
            if is_error and not isinstance(block, TextBlock):
                parts.extend(self._or_fallback(None, turn, index, block, inner_index, ERROR_RESULT))
            else:
                parts.extend(self._or_fallback(_content_part(block, own.part(inner_index)), turn, index, block, inner_index))
        out: dict[str, Any] = {"type": "tool_result", "tool_use_id": self.tool_ids.get(result.id or "", result.id or "")}
        write_kept(out, own.fields)
        if is_error:
            out["is_error"] = True
        write_content(out, parts, own.form, optional=True)
        return out


def _unfit(kind: str, block: ContentBlock) -> str:
    """What makes ``block``, which the API holds elsewhere or otherwise, unfit for a ``kind`` turn."""
    if isinstance(block, ThinkingBlock) and kind == "assistant":
        if _redacted_data(block) is not None:
            return " with text, read from redacted_thinking (its encrypted data goes back only with empty text)"
        return " without a signature"  # the API takes back only the thinking it signed
    if isinstance(block, ToolUseBlock) and kind == "assistant":
        return " whose arguments are not a JSON object"
    if isinstance(block, (ThinkingBlock, ToolUseBlock)) or (kind != "user" and _content_part(block, {}) is not None):
        return in_message(kind)
    return ""


def _tool_use(block: ToolUseBlock, tool_ids: Mapping[str, str]) -> dict[str, Any] | None:
    arguments = tool_arguments(block)
    if arguments is None:
        return None  # raw arguments that are not a JSON object: Anthropic takes an object only
    out = {"type": "tool_use", "id": tool_ids.get(block.id or "", block.id or ""), "name": block.name or "", "input": arguments}
    return write_kept(out, Carried(block.metadata, _FMT).fields)


def _redacted_data(block: ThinkingBlock) -> str | None:
    """The encrypted data of a block read from ``redacted_thinking``; ``None`` for any other."""
    fields = Carried(block.metadata, _FMT).fields
    data = fields.get("data")
    return data if fields.get("type") == "redacted_thinking" and isinstance(data, str) else None


def _thinking(block: ThinkingBlock) -> dict[str, Any] | None:
    fields = Carried(block.metadata, _FMT).fields
    fields.pop("type", None)  # ours to write
    data = _redacted_data(block)
    if data is not None:
        if block.thinking:
            # Text given since: the opaque data cannot say it, and unsigned thinking is refused.
            return None
        del fields["data"]
        return write_kept({"type": "redacted_thinking", "data": data}, fields)
    signature = fields.pop("signature", None)
    if isinstance(signature, str):
        return write_kept({"type": "thinking", "thinking": block.thinking, "signature": signature}, fields)
    return None  # without Anthropic's signature the API refuses the block


def _content_part(block: ContentBlock, extras: dict[str, Any]) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return write_kept({"type": "text", "text": block.text}, extras)
    if isinstance(block, (DataBlock, ImageBlock)):
        return media_part(block.source, block.name if isinstance(block, DataBlock) else None, extras)
    return None


# -- reading --------------------------------------------------------------------


def from_anthropic(payload: Any) -> list[Msg]:
    """The messages of ``{"system": ..., "messages": [...]}`` (or of a bare ``messages`` list).
    The SDK's objects may stand wherever an object is expected (an answer's ``content`` as it is).

    A user turn's ``tool_result`` blocks become a :class:`ToolResultMessage` (each
    result named after the call it answers), the rest of the turn a
    :class:`UserMessage`.  Message ids and timestamps are generated.  Malformed
    input raises :class:`~agentscope_py.DecodeError` naming the path.
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
        refuse_misplaced(request, "", (_is_answer, "from_anthropic_response"))
    out: list[Msg] = []
    if "system" in request:
        out.append(_read_system(request, "", "system", optional=True))
    names: dict[str, str] = {}
    for index, raw in enumerate(req_list(req(request, "messages", ""), "messages")):
        path = item("messages", index)
        obj = req_object(raw, path)
        role = req_str(req(obj, "role", path), at(path, "role"))
        with storing(path):
            if role == "system":  # instructions from this point of the conversation on
                out.append(_read_system(obj, path, "content"))
            elif role in ("user", "assistant"):
                out.extend(_read_turn(obj, path, role, names))
            else:
                raise DecodeError(f"unknown role {elided(role)}; expected user, assistant or system", at(path, "role"))
    return out


def _is_answer(fields: Mapping[str, Any]) -> bool:
    return fields.get("type") == "message"


def _content_list(obj: Mapping[str, Any], path: str, key: str = "content") -> list[Any]:
    value = as_plain(req(obj, key, path))
    if type(value) is str:
        return [{"type": "text", "text": value}]
    if type(value) is list:
        return value
    raise DecodeError(f"expected a string or an array of blocks, got {json_kind(value)}", at(path, key))


def _metadata(
    parts: Mapping[int, Mapping[str, Any]], form: ContentForm | None, blocks: Sequence[ContentBlock]
) -> dict[str, Any]:
    own = carried({}, parts, form, blocks)
    return {_FMT: own} if own else {}


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


def _read_turn(obj: Mapping[str, Any], path: str, role: str, names: dict[str, str]) -> list[Msg]:
    """One turn; a user turn splits into runs of tool results and of other blocks."""
    content_path = at(path, "content")
    runs: list[tuple[bool, list[ContentBlock], dict[int, dict[str, Any]]]] = []
    for index, raw in enumerate(_content_list(obj, path)):
        block_path = item(content_path, index)
        block_obj = req_object(raw, block_path)
        block_type = req_str(req(block_obj, "type", block_path), at(block_path, "type"))
        is_result = block_type == "tool_result" and role == "user"
        if not runs or runs[-1][0] != is_result:
            runs.append((is_result, [], {}))
        _, blocks, parts = runs[-1]
        block, extras = _read_block(block_obj, block_path, block_type, role, names)
        if extras:
            parts[len(blocks)] = extras
        blocks.append(block)
    if not runs:
        runs.append((False, [], {}))
    value = obj["content"]
    out: list[Msg] = []
    for is_result, blocks, parts in runs:
        if is_result:
            out.append(ToolResultMessage(blocks))
            continue
        plain = len(blocks) == 1 and isinstance(blocks[0], TextBlock) and 0 not in parts
        form = content_form(value, True, len(blocks), plain, False) if len(runs) == 1 else None
        if role == "assistant":
            out.append(AssistantMessage(blocks, metadata=_metadata(parts, form, blocks)))
        else:
            # A user turn's blocks other than results are text, images and documents.
            out.append(UserMessage(cast("list[UserBlock]", blocks), metadata=_metadata(parts, form, blocks)))
    return out


def _read_text(obj: Mapping[str, Any], path: str) -> tuple[TextBlock, dict[str, Any]]:
    block_type = req_str(req(obj, "type", path), at(path, "type"))
    if block_type != "text":
        raise DecodeError(f"expected a block of type 'text', got {elided(block_type)}", at(path, "type"))
    extras = unread(obj, _READ_FIELDS["text"])
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
            f"{at(path, 'type')}: a {elided(block_type)} block in {turn} turn cannot be represented; "
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
        extras = unread(obj, (*_READ_FIELDS["tool_use"], *nulls(obj, _NOT_NULL)))
        return ToolUseBlock(call_id, name, arguments, metadata={_FMT: carried(extras)} if extras else None), {}
    extras = unread(obj, _READ_FIELDS[block_type])
    if block_type == "thinking":
        thinking = req_str(req(obj, "thinking", path), at(path, "thinking"))
        signature = req_str(req(obj, "signature", path), at(path, "signature"))
        return ThinkingBlock(thinking, {_FMT: carried({"signature": signature, **extras})}), {}
    data = req_str(req(obj, "data", path), at(path, "data"))
    return ThinkingBlock("", {_FMT: carried({"type": "redacted_thinking", "data": data, **extras})}), {}


def _read_tool_result(obj: Mapping[str, Any], path: str, names: Mapping[str, str]) -> ToolResultBlock:
    call_id = req_str(req(obj, "tool_use_id", path), at(path, "tool_use_id"))
    is_error = opt_bool(obj.get("is_error"), at(path, "is_error"))
    fields = unread(obj, _READ_FIELDS["tool_result"])
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
                    f"{at(block_path, 'type')}: a {elided(block_type)} block in a tool result cannot be represented; "
                    "supported: text, image, document"
                )
            blocks.append(block)
            if extras:
                parts[index] = extras
    plain = len(blocks) == 1 and isinstance(blocks[0], TextBlock) and 0 not in parts
    form = content_form(obj.get("content"), "content" in obj, len(blocks), plain, True)
    own = carried(fields, parts, form, blocks)
    state = ToolResultState.ERROR if is_error else ToolResultState.SUCCESS
    return ToolResultBlock(call_id, names.get(call_id), blocks, {_FMT: own} if own else None, state)
