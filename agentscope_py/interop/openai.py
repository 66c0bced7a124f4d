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
    AudioBlock,
    ContentBlock,
    DataBlock,
    ImageBlock,
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
from .._sources import Base64Source, Source, URLSource
from ..errors import DecodeError, UnsupportedContentError
from ._carry import (
    Carried,
    ContentForm,
    arguments_text,
    carried,
    content_form,
    data_url,
    media_type_of,
    merged,
    nulls,
    parse_arguments,
    pick,
    source_from_url,
    fetchable,
    unread,
    url_or_data_url,
    write_content,
    write_kept,
)
from ._common import ConversionNote, Converted, OnUnsupported, as_message_list, check_policy, nesting_guard
from ._common import req_object, unsupported
from ._conversation import ProblemKind, check_conversation
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
# Optional message fields the SDK's model_dump() writes as null when unset: read as absent,
# the null kept in metadata["openai"] so that writing gives it back.
_NULLABLE = ("name", "tool_calls")
# The two formats input_audio takes, by the media types that name them.
_AUDIO_FORMATS = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/vnd.wave": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}
_AUDIO_TYPES = {"wav": "audio/wav", "mp3": "audio/mpeg"}


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
    policy = check_policy(on_unsupported)
    messages = as_message_list(messages)
    writer = _Writer(policy)
    out: list[dict[str, Any]] = []
    written: set[int] = set()
    holding: set[int] = set()
    for turn in split_turns(messages):
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
    return Converted(out, writer.notes)


class _Writer:
    def __init__(self, policy: OnUnsupported) -> None:
        self.policy = policy
        self.notes: list[ConversionNote] = []
        self.replaced: dict[tuple[int, int], str | None] = {}

    def _fallback(
        self, turn: Turn, index: int, block: ContentBlock, output_index: int | None = None
    ) -> dict[str, Any] | None:
        # Media the API takes from the user only: say where it stood, or "cannot hold a PNG" misleads.
        media = isinstance(block, _USER_MEDIA) and output_index is None and turn.kind != "user"
        text = unsupported(
            self.policy,
            self.notes,
            target=_TARGET,
            message_index=turn.message_index,
            block_index=index,
            block=block,
            output_index=output_index,
            why=f" in {'an' if turn.kind == 'assistant' else 'a'} {turn.kind} message" if media else "",
        )
        return None if text is None else {"type": "text", "text": text}

    def turn(self, turn: Turn) -> list[dict[str, Any]]:
        if turn.kind == "tool":
            return [
                self._tool_message(turn, index, block)
                for index, block in turn.blocks
                if isinstance(block, ToolResultBlock)
            ]
        own = Carried(turn.message.metadata if turn.own else None, _FMT, turn.message.content)
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
        if turn.kind == "system" and own.fields.get("role") == "developer":
            out["role"] = "developer"
        write_content(out, parts, own.form, optional=turn.kind == "assistant")
        if calls:
            out["tool_calls"] = calls
        if turn.message.name is not None:
            name = _sendable_name(turn.message.name)
            if name:
                out["name"] = name
        write_kept(out, own.fields, skip=("role",))  # a kept role is the developer's, written above
        return [out]

    def _left_out(self, turn: Turn) -> bool:
        """Whether the policy dropped every block of ``turn``, and the turn is better not written at all:
        a run of a message whose tool results go out as tool messages of their own, or a user turn (an
        empty user message between a call and its results would part them).  An assistant message the
        policy emptied is written, and refused by the check as the API would refuse it."""
        return (
            bool(turn.blocks)
            and all((turn.message_index, index) in self.replaced for index, _ in turn.blocks)
            and (turn.kind != "assistant" or any(isinstance(block, ToolResultBlock) for block in turn.message.content))
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
        return out


def _text_part(block: ContentBlock, extras: dict[str, Any]) -> dict[str, Any] | None:
    if not isinstance(block, TextBlock):
        return None
    if extras.pop("type", None) == "refusal":
        return merged({"type": "refusal", "refusal": block.text}, extras)
    return merged({"type": "text", "text": block.text}, extras)


_USER_MEDIA = (DataBlock, ImageBlock, AudioBlock)
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
    if isinstance(block, DataBlock):
        return _media_part(block.source, block.name, extras)
    if isinstance(block, (ImageBlock, AudioBlock)):
        extras.setdefault("type", "image_url" if isinstance(block, ImageBlock) else "input_audio")
        return _media_part(block.source, None, extras)
    return None


def _inferred_part_type(source: Source) -> str:
    """The part a media source becomes unless its extras say otherwise: by media type."""
    media_type = media_type_of(source)
    if media_type is None or media_type.startswith("image/"):
        return "image_url"
    return "input_audio" if media_type.startswith("audio/") else "file"


def _media_part(source: Source, name: str | None, extras: dict[str, Any]) -> dict[str, Any] | None:
    declared = extras.pop("type", None)
    part_type = declared or _inferred_part_type(source)
    if part_type == "image_url":
        if not fetchable(source):
            return None
        return merged({"type": "image_url", "image_url": {"url": url_or_data_url(source)}}, extras)
    if part_type == "input_audio":
        fmt = _AUDIO_FORMATS.get(source.media_type) if isinstance(source, Base64Source) else None
        if fmt is None or not isinstance(source, Base64Source):
            return None  # inline WAV or MP3 only
        return merged({"type": "input_audio", "input_audio": {"data": source.data, "format": fmt}}, extras)
    if part_type != "file":
        return None
    if isinstance(source, Base64Source):
        # A file_data that came without a data: prefix reads back with an empty media type.
        file = {"file_data": data_url(source) if source.media_type else source.data}
    elif declared == "file":
        # Only a part read as a file by id has a URL source, standing for the file id.
        file = {"file_id": url_or_data_url(source)}
    else:
        return None  # OpenAI takes files inline or by id, never by URL
    if name is not None:
        file["filename"] = name
    return merged({"type": "file", "file": file}, extras)


def _tool_call(block: ToolUseBlock) -> dict[str, Any]:
    fields = Carried(block.metadata, _FMT).fields
    kind = "custom" if fields.pop("type", None) == "custom" else "function"
    body = {"name": block.name or ""}
    if kind == "custom":
        body["input"] = block.content or ""
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


def from_openai(payload: object) -> list[Msg]:
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
    for index, raw in enumerate(req_list(payload, "messages")):
        path = item("messages", index)
        obj = req_object(raw, path)
        role = req_str(req(obj, "role", path), at(path, "role"))
        if role == "tool":
            results.append(_read_tool_result(obj, path, names))
            continue
        if results:
            out.append(ToolResultMessage(results))
            results = []
        if role in ("system", "developer"):
            out.append(_read_system(obj, path, role))
        elif role == "user":
            blocks, parts, form = _read_parts(obj, path, _read_user_part, optional=False)
            metadata = _metadata({**nulls(obj, _NULLABLE), **unread(obj, _READ_FIELDS["user"])}, parts, form, blocks)
            # _read_user_part only makes text and data blocks.
            out.append(UserMessage(cast("list[UserBlock]", blocks), name=_name(obj, path), metadata=metadata))
        elif role == "assistant":
            out.append(_read_assistant(obj, path, names))
        elif role == "function":
            raise UnsupportedContentError(
                f"{at(path, 'role')}: the deprecated 'function' role is not supported; "
                "send tool calls and 'tool' messages instead"
            )
        else:
            raise DecodeError(
                f"unknown role {role!r}; expected system, developer, user, assistant or tool", at(path, "role")
            )
    if results:
        out.append(ToolResultMessage(results))
    return out


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
        raise DecodeError(f"expected a part of type 'text', got {part_type!r}", at(path, "type"))
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
    # The fields we have no place for, the part's own and (one level down) its object's: image_url.detail.
    extras = unread(obj, ("type", part_type))
    if part_type == "image_url":
        image_path = at(path, "image_url")
        image = req_object(req(obj, "image_url", path), image_path)
        source = source_from_url(req_str(req(image, "url", image_path), at(image_path, "url")))
        opt_str(image.get("detail"), at(image_path, "detail"))
        if kept := unread(image, ("url",)):
            extras["image_url"] = kept
        name = None
    elif part_type == "input_audio":
        audio_path = at(path, "input_audio")
        audio = req_object(req(obj, "input_audio", path), audio_path)
        data = req_str(req(audio, "data", audio_path), at(audio_path, "data"))
        fmt = req_str(req(audio, "format", audio_path), at(audio_path, "format"))
        if kept := unread(audio, ("data", "format")):
            extras["input_audio"] = kept
        source, name = Base64Source(_AUDIO_TYPES.get(fmt, f"audio/{fmt}"), data), None
    elif part_type == "file":
        source, name = _read_file(obj, path, extras)
    else:
        raise DecodeError(
            f"unknown part type {part_type!r}; expected text, image_url, input_audio or file", at(path, "type")
        )
    if _inferred_part_type(source) != part_type:
        extras["type"] = part_type
    return DataBlock(source, name=name), extras


def _read_file(obj: Mapping[str, Any], path: str, extras: dict[str, Any]) -> tuple[Source, str | None]:
    file_path = at(path, "file")
    file = req_object(req(obj, "file", path), file_path)
    file_data = opt_str(file.get("file_data"), at(file_path, "file_data"))
    file_id = opt_str(file.get("file_id"), at(file_path, "file_id"))
    name = opt_str(file.get("filename"), at(file_path, "filename"))
    kept = {**nulls(file, ("file_data", "file_id", "filename")), **unread(file, ("file_data", "file_id", "filename"))}
    if file_data is not None and file_id is not None:
        kept["file_id"] = file_id
    if kept:
        extras["file"] = kept
    if file_data is None:
        if file_id is None:
            raise DecodeError("a file part needs file_data or file_id", file_path)
        return URLSource(file_id), name
    media_type, sep, data = file_data[5:].partition(";base64,") if file_data.startswith("data:") else ("", "", "")
    if sep and media_type:
        return Base64Source(media_type, data), name
    return Base64Source("", file_data), name


def _read_system(obj: Mapping[str, Any], path: str, role: str) -> SystemMessage:
    blocks, parts, form = _read_parts(obj, path, _read_text_part, optional=False)
    fields = {"role": "developer"} if role == "developer" else {}
    fields.update(nulls(obj, _NULLABLE))
    fields.update(unread(obj, _READ_FIELDS[role]))
    texts = [block for block in blocks if isinstance(block, TextBlock)]
    return SystemMessage(texts, name=_name(obj, path), metadata=_metadata(fields, parts, form, blocks))


def _read_assistant(obj: Mapping[str, Any], path: str, names: dict[str, str]) -> AssistantMessage:
    blocks, parts, form = _read_parts(obj, path, _read_assistant_part, optional=True)
    fields = {**pick(obj, _ASSISTANT_FIELDS), **nulls(obj, _NULLABLE), **unread(obj, _READ_FIELDS["assistant"])}
    opt_str(fields.get("refusal"), at(path, "refusal"))
    opt_dict(fields.get("audio"), at(path, "audio"))
    opt_dict(fields.get("function_call"), at(path, "function_call"))
    opt_list(fields.get("annotations"), at(path, "annotations"))
    calls_path = at(path, "tool_calls")
    for index, raw in enumerate(opt_list(obj.get("tool_calls"), calls_path) or []):
        call = _read_tool_call(req_object(raw, item(calls_path, index)), item(calls_path, index))
        names[call.id or ""] = call.name or ""
        blocks.append(call)
    return AssistantMessage(blocks, name=_name(obj, path), metadata=_metadata(fields, parts, form, blocks))


def _read_tool_call(obj: Mapping[str, Any], path: str) -> ToolUseBlock:
    call_id = req_str(req(obj, "id", path), at(path, "id"))
    call_type = req_str(req(obj, "type", path), at(path, "type"))
    if call_type not in ("function", "custom"):
        raise DecodeError(f"unknown tool call type {call_type!r}; expected function or custom", at(path, "type"))
    body_path = at(path, call_type)
    body = req_object(req(obj, call_type, path), body_path)
    name = req_str(req(body, "name", body_path), at(body_path, "name"))
    # The fields we have no place for, the call's (Gemini's extra_content) and its body's, travel in
    # the block's metadata["openai"], the body's under its key.
    kept = unread(obj, ("id", "type", call_type))
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
    metadata = _metadata({**pick(obj, ("name",)), **unread(obj, _READ_FIELDS["tool"])}, parts, form, blocks)
    return ToolResultBlock(call_id, names.get(call_id), blocks, metadata, ToolResultState.SUCCESS)
