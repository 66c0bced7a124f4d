"""Reading an OpenAI Chat Completions ``messages`` list: ``from_openai``, and ``read_assistant``,
which ``from_openai_response`` reads an answer's message with.  The writer is in ``openai``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from .._blocks import (
    ContentBlock,
    TextBlock,
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
    opt_dict,
    opt_list,
    opt_str,
    req,
    req_list,
    req_str,
)
from .._role_messages import AssistantMessage, SystemMessage, ToolResultMessage, UserMessage
from .._roles import UserBlock
from .._shown import elided
from ..errors import DecodeError, UnsupportedContentError
from ._call_arguments import parse_arguments
from ._carry import RESPONSE_KEY, ContentForm, carried_entry, content_form, nulls, pick, unread
from ._common import Converted
from ._openai_media import MEDIA_PARTS, read_media_part
from ._payloads import nesting_guard, refuse_answer, refuse_misplaced, req_object, sdk_json, storing
from ._turns import says_nothing

__all__ = ["ANSWER_FIELDS", "FMT", "answer_transcript", "from_openai", "read_assistant"]

FMT = "openai"
# Message fields we have no place for; kept verbatim in metadata["openai"].
_ASSISTANT_FIELDS = ("refusal", "audio", "function_call")
# Message fields that describe the answer, not the turn (an answer's url citations): no request message
# has them, and servers that refuse unknown properties answer 400, so they go under "response".
ANSWER_FIELDS = ("annotations",)
# The fields each role's reader reads; any other (a provider's extension, such as
# ``reasoning_content``) is kept verbatim in metadata["openai"] too, and written back.
_READ_FIELDS = {
    "system": frozenset({"role", "content", "name"}),
    "developer": frozenset({"role", "content", "name"}),
    "user": frozenset({"role", "content", "name"}),
    # "parsed": the SDK's parse() repeats the content there (a ParsedChatCompletionMessage appended to
    # the list); no request has it, and the API refuses what it does not know.
    "assistant": frozenset({"role", "content", "name", "tool_calls", "parsed", *_ASSISTANT_FIELDS, *ANSWER_FIELDS}),
    "tool": frozenset({"role", "content", "name", "tool_call_id"}),
}
# Message fields the SDK's model_dump() writes as null when unset, which a request cannot hold as
# null (name, tool_calls and tool_call_id are no Optional there): read as absent, on any message,
# and not written back.  The other
# nulls it writes (refusal, audio, function_call) a request takes, and they go back as they came;
# annotations, which no request has, are never written back.
_NOT_NULL = ("name", "tool_calls", "tool_call_id")
# The fields of a call or a result, and the one role whose messages hold each.
_CALL_FIELDS = {"tool_calls": "assistant", "tool_call_id": "tool"}

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
        refuse_misplaced(payload, "messages")
    for index, raw in enumerate(req_list(payload, "messages")):
        path = item("messages", index)
        obj = req_object(raw, path)
        refuse_answer(obj, path)
        role = req_str(req(obj, "role", path), at(path, "role"))
        _refuse_calls_out_of_place(obj, path, role)
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


def _refuse_calls_out_of_place(obj: Mapping[str, Any], path: str, role: str) -> None:
    """Tool calls belong to an assistant's turn and a result's call id to a tool message: kept as
    fields of another role's message, they would be no call or result of the conversation, and
    would go back where the API refuses them."""
    for key, owner in _CALL_FIELDS.items():
        if role != owner and obj.get(key) is not None:
            raise DecodeError(f"only {owner} messages hold {key}, not a {role} message", at(path, key))


def _read_message(obj: Mapping[str, Any], path: str, role: str, names: dict[str, str]) -> Msg:
    """One message that is not a tool result."""
    if role in ("system", "developer"):
        return _read_system(obj, path, role)
    if role == "user":
        blocks, parts, form = _read_parts(obj, path, _read_user_part, optional=False)
        metadata = _metadata(_without_refused_nulls(unread(obj, _READ_FIELDS["user"])), parts, form, blocks)
        # _read_user_part only makes text and data blocks.
        return UserMessage(cast("list[UserBlock]", blocks), name=_name(obj, path), metadata=metadata)
    if role == "assistant":
        return read_assistant(obj, path, names)
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
    own = carried_entry(fields, parts, form, blocks)
    return {FMT: own} if own else {}


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


# The content parts of the Responses API's items, which no Chat Completions message holds.
_RESPONSES_PARTS = frozenset({"input_text", "input_image", "input_file", "output_text"})


def _not_a_part(problem: str, part_type: str, path: str) -> DecodeError:
    if part_type in _RESPONSES_PARTS:
        problem += " (a part of a Responses API item: this reads Chat Completions messages)"
    return DecodeError(problem, at(path, "type"))


def _read_text_part(obj: Mapping[str, Any], path: str) -> _Part:
    part_type = _part_type(obj, path)
    if part_type != "text":
        raise _not_a_part(f"expected a part of type 'text', got {elided(part_type)}", part_type, path)
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
        expected = "expected text, image_url, input_audio or file"
        raise _not_a_part(f"unknown part type {elided(part_type)}; {expected}", part_type, path)
    return read_media_part(obj, path, part_type)


def _read_system(obj: Mapping[str, Any], path: str, role: str) -> SystemMessage:
    blocks, parts, form = _read_parts(obj, path, _read_text_part, optional=False)
    fields = {"role": "developer"} if role == "developer" else {}
    fields.update(_without_refused_nulls(unread(obj, _READ_FIELDS[role])))
    texts = [block for block in blocks if isinstance(block, TextBlock)]
    return SystemMessage(texts, name=_name(obj, path), metadata=_metadata(fields, parts, form, blocks))


def read_assistant(obj: Mapping[str, Any], path: str, names: dict[str, str]) -> AssistantMessage:
    blocks, parts, form = _read_parts(obj, path, _read_assistant_part, optional=True)
    fields = _without_refused_nulls({**pick(obj, _ASSISTANT_FIELDS), **unread(obj, _READ_FIELDS["assistant"])})
    refusal = opt_str(fields.get("refusal"), at(path, "refusal"))
    answer_audio = _answer_audio(fields, path)
    _function_call(fields, path)
    answer = _answer_fields(obj, path)
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
    elif (said := answer_transcript(answer_audio)) is not None and says_nothing(blocks):
        # What an audio answer said is its text too, so that it is no empty turn that repair would
        # drop; the content it came with said nothing.
        blocks, parts, form = [TextBlock(said)], {}, None
    metadata = _metadata(fields, parts, form, blocks)
    if answer_audio is not None:
        answer["audio"] = answer_audio
    if answer:
        metadata.setdefault(FMT, {})[RESPONSE_KEY] = answer
    return AssistantMessage(blocks, name=_name(obj, path), metadata=metadata)


def _answer_fields(obj: Mapping[str, Any], path: str) -> dict[str, Any]:
    """The fields of ``ANSWER_FIELDS`` the message gives, verbatim but for a null, which is none."""
    out: dict[str, Any] = {}
    for key in ANSWER_FIELDS:
        values = opt_list(obj.get(key), at(path, key))
        if values is not None:
            # Its items may be the SDK's objects, in a message dict built around them.
            out[key] = [sdk_json(value) for value in values]
    return out


def _answer_audio(fields: dict[str, Any], path: str) -> dict[str, Any] | None:
    """The audio of an answer (``{id, data, expires_at, transcript}``), which ``fields`` then keep by
    its id alone: a request names the audio so, and the API refuses the rest, which describes the
    answer.  ``None`` for none, or for audio as a request gives it, kept as it came."""
    audio_path = at(path, "audio")
    audio = opt_dict(sdk_json(fields.get("audio")), audio_path)
    if audio is None:
        return None
    # The id a request names the audio by: without it, the API refuses the message.
    fields["audio"] = {"id": req_str(req(audio, "id", audio_path), at(audio_path, "id"))}
    return None if audio.keys() <= {"id"} else audio


def _function_call(fields: dict[str, Any], path: str) -> None:
    """Check the deprecated ``function_call`` as a request holds it (``{name, arguments}``), and keep
    it as its JSON (the SDK's ``FunctionCall`` in a message dict built around it)."""
    call_path = at(path, "function_call")
    call = opt_dict(sdk_json(fields.get("function_call")), call_path)
    if call is not None:
        for key in ("name", "arguments"):
            req_str(req(call, key, call_path), at(call_path, key))
        fields["function_call"] = call


def answer_transcript(audio: object) -> str | None:
    """What an audio answer (its whole ``audio`` object) said, when it says something: then it is
    the message's text, if the content said nothing."""
    text = audio.get("transcript") if isinstance(audio, Mapping) else None
    return text if isinstance(text, str) and text.strip() else None


def _as_json(content: object, path: str) -> object:
    """Content ``_read_parts`` read, as the JSON it holds (its parts may be the SDK's objects)."""
    value = as_plain(content)
    if type(value) is list:
        return [req_object(part, item(path, index)) for index, part in enumerate(value)]
    return value


def _read_tool_call(obj: Mapping[str, Any], path: str) -> ToolUseBlock:
    # A server that streams a call without its id leaves the SDK's ChatCompletionStreamState a call
    # with none (null once dumped): the answer is still read, and the call, which no result can name,
    # is left for the conversation check to report (see docs/interop/openai.md).
    call_id = opt_str(obj.get("id"), at(path, "id"))
    call_type = _call_type(obj, path)
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
        return ToolUseBlock(call_id, name, {}, text, {FMT: carried_entry({"type": "custom", **kept})})
    return ToolUseBlock(call_id, name, parse_arguments(text), text, {FMT: carried_entry(kept)} if kept else None)


def _call_type(obj: Mapping[str, Any], path: str) -> str:
    """The kind of a call: its ``type``, or, where that is null or absent, the body it has.  The SDK's
    ChatCompletionStreamState leaves ``type`` null when no delta of the call said it, as some
    OpenAI-compatible servers stream calls."""
    raw = obj.get("type")
    if raw is None:
        return "custom" if "custom" in obj and "function" not in obj else "function"
    call_type = req_str(raw, at(path, "type"))
    if call_type not in ("function", "custom"):
        raise DecodeError(f"unknown tool call type {elided(call_type)}; expected function or custom", at(path, "type"))
    return call_type


def _read_tool_result(obj: Mapping[str, Any], path: str, names: Mapping[str, str]) -> ToolResultBlock:
    call_id = req_str(req(obj, "tool_call_id", path), at(path, "tool_call_id"))
    # A tool message's name (some servers take one) has no place in our result, whose name is the call's.
    opt_str(obj.get("name"), at(path, "name"))
    blocks, parts, form = _read_parts(obj, path, _read_text_part, optional=False)
    fields = _without_refused_nulls({**pick(obj, ("name",)), **unread(obj, _READ_FIELDS["tool"])})
    metadata = _metadata(fields, parts, form, blocks)
    return ToolResultBlock(call_id, names.get(call_id), blocks, metadata, ToolResultState.SUCCESS)
