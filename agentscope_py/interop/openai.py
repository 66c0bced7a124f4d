"""OpenAI Chat Completions: the ``messages`` list of ``client.chat.completions.create``.

``to_openai(messages)`` gives that list; ``from_openai(payload)`` reads one back.
The mapping, what travels in ``metadata["openai"]`` and what raises are in
``docs/interop/openai.md``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

from .._blocks import (
    ContentBlock,
    TextBlock,
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
    opt_dict,
    opt_list,
    opt_str,
    req,
    req_list,
    req_str,
)
from .._roles import UserBlock
from .._shown import elided
from ..errors import DecodeError, UnsupportedContentError
from ._carry import (
    RESPONSE_KEY,
    Carried,
    ContentForm,
    MessageCarried,
    arguments_text,
    carried,
    content_form,
    merged,
    nulls,
    parse_arguments,
    pick,
    unread,
    write_content,
    write_kept,
)
from ._common import (
    Conversion,
    Converted,
    OnUnsupported,
    as_message_list,
    in_message,
    nesting_guard,
    refuse_misplaced,
    req_object,
    says_nothing,
    sdk_json,
    storing,
    url_hint,
)
from ._conversation import ProblemKind, check_conversation
from ._openai_media import MEDIA_BLOCKS, MEDIA_PARTS, media_part, read_media_part
from ._turns import Turn, split_turns

__all__ = ["from_openai", "to_openai"]

_TARGET = "OpenAI Chat Completions"
_FMT = "openai"
# Message fields we have no place for; kept verbatim in metadata["openai"].
_ASSISTANT_FIELDS = ("refusal", "audio", "function_call", "annotations")
# The fields each role's reader reads; any other (a provider's extension, such as
# ``reasoning_content``) is kept verbatim in metadata["openai"] too, and written back.
_READ_FIELDS = {
    "system": frozenset({"role", "content", "name"}),
    "developer": frozenset({"role", "content", "name"}),
    "user": frozenset({"role", "content", "name"}),
    # "parsed": the SDK's parse() repeats the content there (a ParsedChatCompletionMessage appended to
    # the list); no request has it, and the API refuses what it does not know.
    "assistant": frozenset({"role", "content", "name", "tool_calls", "parsed", *_ASSISTANT_FIELDS}),
    "tool": frozenset({"role", "content", "name", "tool_call_id"}),
}
# Carried assistant fields that say something without content: the API takes an assistant message
# with one of them and nothing else (an audio answer named by its id, a legacy function call).
_SAYING_FIELDS = frozenset({"audio", "function_call"})
# Message fields the SDK's model_dump() writes as null when unset, which a request cannot hold as
# null (name and tool_calls are no Optional there, and a request message has no annotations): read
# as absent, and not written back.  The other nulls it writes (refusal, audio, function_call) a
# request takes, and they go back as they came.
_NOT_NULL = ("name", "tool_calls", "annotations")


# -- writing --------------------------------------------------------------------


def to_openai(
    messages: Iterable[Msg], *, on_unsupported: OnUnsupported = "raise", validate: bool = True
) -> Converted:
    """The Chat Completions ``messages`` list for ``messages``.

    A block OpenAI cannot hold (a ThinkingBlock, a HintBlock, media in an assistant
    turn, video) raises :class:`UnsupportedContentError` unless ``on_unsupported``
    says ``"drop"`` or ``"text"``; the result's ``notes`` list each such block.
    With ``validate`` (the default) a conversation the API would reject with a 400
    (a tool call without its result, an orphan result, an empty assistant message)
    raises :class:`~agentscope_py.ConversationError`; ``repair_conversation`` fixes it.
    """
    conversion = Conversion(_TARGET, on_unsupported)
    messages = as_message_list(messages)
    turns = split_turns(messages)
    writer = _Writer(conversion, {turn.message_index for turn in turns if turn.kind == "tool"})
    out: list[dict[str, Any]] = []
    written: set[int] = set()
    holding: set[int] = set()
    for turn in turns:
        written_turn = writer.turn(turn)
        if written_turn:
            written.add(turn.message_index)
        if turn.kind == "assistant" and any(m.get(key) is not None for m in written_turn for key in _SAYING_FIELDS):
            holding.add(turn.message_index)
        out.extend(written_turn)
    if validate:
        # What is written: an assistant message the policy emptied is refused like any empty one,
        # a message it left out altogether is absent.  OpenAI takes a user message with empty content.
        omitted = set(range(len(messages))) - written
        check_conversation(
            messages, _TARGET, writer.replaced, (ProblemKind.EMPTY_USER_MESSAGE,), omitted=omitted, holding=holding
        )
    return Converted(out, writer.conversion.notes)


class _Writer:
    def __init__(self, conversion: Conversion, split: set[int]) -> None:
        self.conversion = conversion
        self.replaced: dict[tuple[int, int], str | None] = {}
        self.split = split  # the messages whose tool results go out as tool messages of their own
        self.carried = MessageCarried(_FMT)
        self.fields_sent = -1  # the last message whose kept fields are written

    def _fallback(
        self, turn: Turn, index: int, block: ContentBlock, output_index: int | None = None
    ) -> dict[str, Any] | None:
        # Media the API takes from the user only: say where it stood, or "cannot hold a PNG" misleads.
        held_elsewhere = output_index is None and turn.kind != "user" and _part("user", block, {}) is not None
        why = in_message(turn.kind) if held_elsewhere else ""
        # Media of a user turn refused for its URL: a file id, or a type OpenAI takes inline only.
        hint = url_hint(block) if output_index is None and turn.kind == "user" else ""
        text = self.conversion.refuse(turn.message_index, index, block, output_index, why, hint)
        return None if text is None else {"type": "text", "text": text}

    def turn(self, turn: Turn) -> list[dict[str, Any]]:
        if turn.kind == "tool":
            return [
                self._tool_message(turn, index, block)
                for index, block in turn.blocks
                if isinstance(block, ToolResultBlock)
            ]
        own = self.carried.of(turn)
        out: dict[str, Any] = {"role": turn.kind}
        parts: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        for index, block in turn.blocks:
            extras = own.part(index)
            if isinstance(block, ToolUseBlock) and turn.kind == "assistant":
                calls.append(_tool_call(block))
                continue
            part = _part(turn.kind, block, extras)
            if part is None:
                part = self._fallback(turn, index, block)
                self.replaced[turn.message_index, index] = None if part is None else part["text"]
            if part is not None:
                parts.append(part)
        if not (parts or calls) and self._left_out(turn):
            return []  # as the conversation is checked: the turn is absent
        # The message's kept fields go out once, with the first of its turns written: its tool results
        # cut it into turns, and each turn sent with them would be read back as a message holding them.
        fields = own.fields if self.fields_sent != turn.message_index else {}
        skip = ["role"]  # a kept role is the developer's, written below
        if turn.kind == "assistant" and _refusal_read_as_text(fields, own.form):
            if [block for _, block in turn.blocks] == [TextBlock(fields["refusal"])]:
                parts = []  # the refusal says it, with the content it came with: not twice
            else:
                # Edited since: what the message holds now is written, and the refusal it no longer
                # says is stale, as is the content that came with it.
                skip += ["refusal", "content"]
        if turn.kind == "system" and own.fields.get("role") == "developer":
            out["role"] = "developer"
        write_content(out, parts, own.form, optional=turn.kind == "assistant")
        if calls:
            out["tool_calls"] = calls
        if turn.message.name is not None:
            name = _sendable_name(turn.message.name)
            if name:
                out["name"] = name
        if (
            turn.kind == "assistant"
            and turn.blocks
            and says_nothing(block for _, block in turn.blocks)
            and turn.message_index in self.split
            and all(fields.get(key) is None for key in _SAYING_FIELDS)
        ):
            # Blank text beside the message's tool results, which go out as tool messages: alone, it
            # would be an empty assistant message, which the API refuses.  The other turns carry it,
            # and the kept fields.
            return []
        write_kept(out, fields, skip)
        self.fields_sent = turn.message_index
        return [_without_empty_content(out)]

    def _left_out(self, turn: Turn) -> bool:
        """Whether the policy dropped every block of ``turn``, and the turn is better not written at all:
        a run of a message whose tool results go out as tool messages of their own, or a user turn (an
        empty user message between a call and its results would part them).  An assistant message the
        policy emptied is written, and refused by the check as the API would refuse it."""
        return (
            bool(turn.blocks)
            and all((turn.message_index, index) in self.replaced for index, _ in turn.blocks)
            and (turn.kind != "assistant" or turn.message_index in self.split)
        )

    def _tool_message(self, turn: Turn, index: int, result: ToolResultBlock) -> dict[str, Any]:
        own = Carried(result.metadata, _FMT, result.output)
        parts: list[dict[str, Any]] = []
        for inner_index, block in enumerate(result.output):
            part = _text_part(block, own.part(inner_index))
            if part is None:
                part = self._fallback(turn, index, block, inner_index)
            if part is not None:
                parts.append(part)
        out: dict[str, Any] = {"role": "tool", "tool_call_id": result.id or ""}
        write_content(out, parts, own.form, optional=False)
        write_kept(out, own.fields, skip=("role",))
        return _without_empty_content(out)


def _without_empty_content(out: dict[str, Any]) -> dict[str, Any]:
    """``out`` without ``content: []``, which the API refuses ("expected an array with minimum length
    1"), though the SDK's types allow it: an assistant message then has no content (its calls or its
    audio say what it says), any other says nothing as ``""``."""
    if out.get("content") == []:
        if out["role"] == "assistant":
            del out["content"]
        else:
            out["content"] = ""
    return out


def _refusal_read_as_text(fields: Mapping[str, Any], form: ContentForm | None) -> bool:
    """Whether the message's text was read from its ``refusal``, the content it came with (which
    said nothing) kept as it was (``"content"``, or the form ``"absent"``): see ``_read_assistant``."""
    return isinstance(fields.get("refusal"), str) and ("content" in fields or form == "absent")


def _text_part(block: ContentBlock, extras: dict[str, Any]) -> dict[str, Any] | None:
    if not isinstance(block, TextBlock):
        return None
    if extras.pop("type", None) == "refusal":
        return merged({"type": "refusal", "refusal": block.text}, extras)
    return merged({"type": "text", "text": block.text}, extras)


# The names the API takes for a participant; it answers any other with a 400.
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_-]+")


def _sendable_name(name: str) -> str:
    """``name`` as the API takes it: each run of other characters as ``_``, cut to 64; ``""`` when
    nothing of it is left (a name in another script), which is better sent as no name than as ``_``."""
    if _NAME.fullmatch(name):
        return name
    sendable = _NOT_IN_NAME.sub("_", name)[:64]
    return sendable if sendable.strip("_") else ""


def _part(kind: str, block: ContentBlock, extras: dict[str, Any]) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return _text_part(block, extras)
    if kind != "user":
        return None  # system and assistant content is text only
    if isinstance(block, MEDIA_BLOCKS):
        return media_part(block, extras)
    return None


def _tool_call(block: ToolUseBlock) -> dict[str, Any]:
    fields = Carried(block.metadata, _FMT).fields
    kind = "custom" if fields.pop("type", None) == "custom" else "function"
    body = {"name": block.name or ""}
    if kind == "custom":
        # Free text, read into content; an input given since, which the text no longer says, is
        # written as its JSON text (the rule for every call), so that the edit is what is sent.
        body["input"] = arguments_text(block) if block.input else block.content or ""
    else:
        body["arguments"] = arguments_text(block)
    kept_body = fields.pop(kind, None)
    if isinstance(kept_body, Mapping):  # the body's fields we have no place for
        body.update((key, value) for key, value in kept_body.items() if key not in body)
    # The call's own fields (Gemini's extra_content, whose thought signature its server wants back).
    return write_kept({"id": block.id or "", "type": kind, kind: body}, fields)


# -- reading --------------------------------------------------------------------

_Part = tuple[ContentBlock, dict[str, Any]]
_PartReader = Callable[[Mapping[str, Any], str], _Part]


def from_openai(payload: Any) -> list[Msg]:
    """The messages of a Chat Completions ``messages`` list: parsed JSON, the SDK's dicts, or its
    objects wherever an object is expected (a ``ChatCompletionMessage`` appended to the list).

    Consecutive ``tool`` messages become one :class:`ToolResultMessage`, each result
    named after the call it answers.  Message ids and timestamps are generated (the
    format has none).  Malformed input raises :class:`~agentscope_py.DecodeError`
    naming the path, e.g. ``messages[3].tool_calls[0].function.arguments``.
    """
    if isinstance(payload, Converted):
        payload = list(payload)  # what to_openai returned: read it like the list it is
    with nesting_guard():
        return _read_messages(payload)


def _read_messages(payload: object) -> list[Msg]:
    names: dict[str, str] = {}
    out: list[Msg] = []
    results: list[ToolResultBlock] = []
    if not isinstance(payload, (list, tuple)):
        refuse_misplaced(payload, "messages", (_is_completion, "from_openai_response"))
    for index, raw in enumerate(req_list(payload, "messages")):
        path = item("messages", index)
        obj = req_object(raw, path)
        if "role" not in obj and _is_completion(obj):
            raise DecodeError("a model's answer, not a message; read it with from_openai_response", path)
        role = req_str(req(obj, "role", path), at(path, "role"))
        if role == "tool":
            with storing(path):
                results.append(_read_tool_result(obj, path, names))
            continue
        if results:
            out.append(ToolResultMessage(results))
            results = []
        with storing(path):
            out.append(_read_message(obj, path, role, names))
    if results:
        out.append(ToolResultMessage(results))
    return out


def _is_completion(fields: Mapping[str, Any]) -> bool:
    return "choices" in fields


def _read_message(obj: Mapping[str, Any], path: str, role: str, names: dict[str, str]) -> Msg:
    """One message that is not a tool result."""
    if role in ("system", "developer"):
        return _read_system(obj, path, role)
    if role == "user":
        blocks, parts, form = _read_parts(obj, path, _read_user_part, optional=False)
        metadata = _metadata(unread(obj, _READ_FIELDS["user"]), parts, form, blocks)
        # _read_user_part only makes text and data blocks.
        return UserMessage(cast("list[UserBlock]", blocks), name=_name(obj, path), metadata=metadata)
    if role == "assistant":
        return _read_assistant(obj, path, names)
    if role == "function":
        raise UnsupportedContentError(
            f"{at(path, 'role')}: the deprecated 'function' role is not supported; "
            "send tool calls and 'tool' messages instead"
        )
    raise DecodeError(
        f"unknown role {elided(role)}; expected system, developer, user, assistant or tool", at(path, "role")
    )


def _without_refused_nulls(fields: dict[str, Any]) -> dict[str, Any]:
    """The fields to keep, but those of ``_NOT_NULL`` given as null."""
    return unread(fields, nulls(fields, _NOT_NULL))


def _name(obj: Mapping[str, Any], path: str) -> str | None:
    return opt_str(obj.get("name"), at(path, "name"))


def _metadata(
    fields: Mapping[str, Any],
    parts: Mapping[int, Mapping[str, Any]],
    form: ContentForm | None,
    blocks: Sequence[ContentBlock],
) -> dict[str, Any]:
    own = carried(fields, parts, form, blocks)
    return {_FMT: own} if own else {}


def _read_parts(
    obj: Mapping[str, Any], path: str, read_part: _PartReader, *, optional: bool
) -> tuple[list[ContentBlock], dict[int, dict[str, Any]], ContentForm | None]:
    """The blocks of ``obj["content"]``, the extra fields of each part, and the form it came in."""
    present = "content" in obj
    if not present and not optional:
        raise DecodeError("missing required key 'content'", path)
    value = as_plain(obj.get("content"))
    content_path = at(path, "content")
    blocks: list[ContentBlock] = []
    parts: dict[int, dict[str, Any]] = {}
    if isinstance(value, str):
        blocks.append(TextBlock(value))
    elif type(value) is list:
        for index, raw in enumerate(value):
            part_path = item(content_path, index)
            block, extras = read_part(req_object(raw, part_path), part_path)
            blocks.append(block)
            if extras:
                parts[index] = extras
    elif value is not None or not optional:
        raise DecodeError(f"expected a string or an array of parts, got {json_kind(value)}", content_path)
    plain = len(blocks) == 1 and isinstance(blocks[0], TextBlock) and 0 not in parts
    return blocks, parts, content_form(value, present, len(blocks), plain, optional)


def _part_type(obj: Mapping[str, Any], path: str) -> str:
    return req_str(req(obj, "type", path), at(path, "type"))


def _read_text_part(obj: Mapping[str, Any], path: str) -> _Part:
    part_type = _part_type(obj, path)
    if part_type != "text":
        raise DecodeError(f"expected a part of type 'text', got {elided(part_type)}", at(path, "type"))
    return TextBlock(req_str(req(obj, "text", path), at(path, "text"))), unread(obj, ("type", "text"))


def _read_assistant_part(obj: Mapping[str, Any], path: str) -> _Part:
    if _part_type(obj, path) == "refusal":
        refusal = req_str(req(obj, "refusal", path), at(path, "refusal"))
        return TextBlock(refusal), {"type": "refusal", **unread(obj, ("type", "refusal"))}
    return _read_text_part(obj, path)


def _read_user_part(obj: Mapping[str, Any], path: str) -> _Part:
    part_type = _part_type(obj, path)
    if part_type == "text":
        return _read_text_part(obj, path)
    if part_type not in MEDIA_PARTS:
        raise DecodeError(
            f"unknown part type {elided(part_type)}; expected text, image_url, input_audio or file", at(path, "type")
        )
    return read_media_part(obj, path, part_type)


def _read_system(obj: Mapping[str, Any], path: str, role: str) -> SystemMessage:
    blocks, parts, form = _read_parts(obj, path, _read_text_part, optional=False)
    fields = {"role": "developer"} if role == "developer" else {}
    fields.update(unread(obj, _READ_FIELDS[role]))
    texts = [block for block in blocks if isinstance(block, TextBlock)]
    return SystemMessage(texts, name=_name(obj, path), metadata=_metadata(fields, parts, form, blocks))


def _read_assistant(obj: Mapping[str, Any], path: str, names: dict[str, str]) -> AssistantMessage:
    blocks, parts, form = _read_parts(obj, path, _read_assistant_part, optional=True)
    fields = _without_refused_nulls({**pick(obj, _ASSISTANT_FIELDS), **unread(obj, _READ_FIELDS["assistant"])})
    refusal = opt_str(fields.get("refusal"), at(path, "refusal"))
    answer_audio = _answer_audio(fields, path)
    opt_dict(fields.get("function_call"), at(path, "function_call"))
    opt_list(fields.get("annotations"), at(path, "annotations"))
    calls_path = at(path, "tool_calls")
    for index, raw in enumerate(opt_list(obj.get("tool_calls"), calls_path) or []):
        call = _read_tool_call(req_object(raw, item(calls_path, index)), item(calls_path, index))
        names[call.id or ""] = call.name or ""
        blocks.append(call)
    if refusal is not None and refusal.strip() and says_nothing(blocks):
        # A refusal with no content (null, none, or blank text as some servers send) and no call: it is
        # what the message says, as from_openai_response reads it; else the turn is empty, and repair
        # drops it.  The content goes back as it came (kept whole, or its absence as the form), beside
        # the refusal, while the text is still the refusal (see _Writer.turn).
        if "content" in obj:
            fields["content"] = _as_json(obj["content"], at(path, "content"))
            form = None
        else:
            form = "absent"
        blocks, parts = [TextBlock(refusal)], {}
    elif (said := _transcript(answer_audio)) is not None and says_nothing(blocks):
        # What an audio answer said is its text too, so that it is no empty turn that repair would
        # drop; the content it came with said nothing.
        blocks, parts, form = [TextBlock(said)], {}, None
    metadata = _metadata(fields, parts, form, blocks)
    if answer_audio is not None:
        metadata.setdefault(_FMT, {})[RESPONSE_KEY] = {"audio": answer_audio}
    return AssistantMessage(blocks, name=_name(obj, path), metadata=metadata)


def _answer_audio(fields: dict[str, Any], path: str) -> dict[str, Any] | None:
    """The audio of an answer (``{id, data, expires_at, transcript}``), which ``fields`` then keep by
    its id alone: a request names the audio so, and the API refuses the rest, which describes the
    answer.  ``None`` for none, or for audio as a request gives it, kept as it came."""
    audio_path = at(path, "audio")
    audio = opt_dict(sdk_json(fields.get("audio")), audio_path)
    if audio is None or audio.keys() <= {"id"}:
        return None
    fields["audio"] = {"id": req_str(req(audio, "id", audio_path), at(audio_path, "id"))}
    return audio


def _transcript(audio: Mapping[str, Any] | None) -> str | None:
    """What an audio answer said, when it says something."""
    text = None if audio is None else audio.get("transcript")
    return text if isinstance(text, str) and text.strip() else None


def _as_json(content: object, path: str) -> object:
    """Content ``_read_parts`` read, as the JSON it holds (its parts may be the SDK's objects)."""
    value = as_plain(content)
    if type(value) is list:
        return [req_object(part, item(path, index)) for index, part in enumerate(value)]
    return value


def _read_tool_call(obj: Mapping[str, Any], path: str) -> ToolUseBlock:
    call_id = req_str(req(obj, "id", path), at(path, "id"))
    call_type = req_str(req(obj, "type", path), at(path, "type"))
    if call_type not in ("function", "custom"):
        raise DecodeError(f"unknown tool call type {elided(call_type)}; expected function or custom", at(path, "type"))
    body_path = at(path, call_type)
    body = req_object(req(obj, call_type, path), body_path)
    name = req_str(req(body, "name", body_path), at(body_path, "name"))
    # The fields we have no place for, the call's (Gemini's extra_content) and its body's, travel in
    # the block's metadata["openai"], the body's under its key.  "index" says which call a streamed
    # chunk extends, and the SDK's ChatCompletionStreamState leaves it on each call it gathers; no
    # request has it.
    kept = unread(obj, ("id", "type", call_type, "index"))
    text_key = "input" if call_type == "custom" else "arguments"
    # "parsed_arguments": the SDK's parse() repeats the arguments there; no request has it.
    if kept_body := unread(body, ("name", text_key, "parsed_arguments")):
        kept[call_type] = kept_body
    text = req_str(req(body, text_key, body_path), at(body_path, text_key))
    if call_type == "custom":
        return ToolUseBlock(call_id, name, {}, text, {_FMT: carried({"type": "custom", **kept})})
    return ToolUseBlock(call_id, name, parse_arguments(text), text, {_FMT: carried(kept)} if kept else None)


def _read_tool_result(obj: Mapping[str, Any], path: str, names: Mapping[str, str]) -> ToolResultBlock:
    call_id = req_str(req(obj, "tool_call_id", path), at(path, "tool_call_id"))
    # A tool message's name (some servers take one) has no place in our result, whose name is the call's.
    opt_str(obj.get("name"), at(path, "name"))
    blocks, parts, form = _read_parts(obj, path, _read_text_part, optional=False)
    fields = _without_refused_nulls({**pick(obj, ("name",)), **unread(obj, _READ_FIELDS["tool"])})
    metadata = _metadata(fields, parts, form, blocks)
    return ToolResultBlock(call_id, names.get(call_id), blocks, metadata, ToolResultState.SUCCESS)
