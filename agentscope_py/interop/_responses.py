"""A provider's answer as one :class:`AssistantMessage`: OpenAI's ``ChatCompletion`` and Anthropic's
``Message``, as the SDKs return them (or their ``model_dump()``, or the parsed JSON: a dict).

The message is read as the request readers read an assistant turn, so its blocks
and carried fields are the same; the answer adds what a request turn has no
place for.  ``usage`` becomes the message's :class:`ChatUsage`, the stop reason
its generate reason where one fits (a stop, a tool call), and every other field
of the answer (ids, model, the stop reason itself, the provider's own usage
figures) is kept verbatim under ``metadata[<format>]["response"]``, which the
``to_*`` writers leave out: it describes the call, not the turn.
"""

from __future__ import annotations

import datetime
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

from .._checks import describe
from .._enums import GenerateReason
from .._messages import Msg
from .._reader import (
    as_plain,
    at,
    item,
    json_kind,
    opt_dict,
    opt_int,
    opt_str,
    req,
    req_list,
    req_str,
)
from .._role_messages import AssistantMessage
from .._shown import elided
from .._usage import ChatUsage
from ..errors import ArgumentTypeError, DecodeError
from . import _anthropic_read, _openai_read
from ._carry import RESPONSE_KEY
from ._payloads import model_answer, nesting_guard, read_usage, req_object, sdk_json
from ._stream_json import time_as_json

__all__ = ["from_anthropic_response", "from_openai_response", "stop_reason"]

_OPENAI_REASONS = {
    "stop": GenerateReason.MODEL_STOP,
    "tool_calls": GenerateReason.TOOL_CALLS,
}
_ANTHROPIC_REASONS = {
    "end_turn": GenerateReason.MODEL_STOP,
    "stop_sequence": GenerateReason.MODEL_STOP,
    "tool_use": GenerateReason.TOOL_CALLS,
}
# The events of a streamed Anthropic answer (raw_message_stream_event.py, and the keep-alive "ping").
_ANTHROPIC_STREAM_EVENTS = frozenset(
    {"message_start", "message_delta", "message_stop", "content_block_start", "content_block_delta",
     "content_block_stop", "ping"}
)


def from_openai_response(completion: Any, *, choice: int = 0) -> AssistantMessage:
    """The message of ``completion.choices[choice]`` of a Chat Completions answer: the SDK's
    ``ChatCompletion``, its ``model_dump()``, or the parsed JSON (a dict, not the JSON text).

    ``usage`` gives ``ChatUsage(prompt_tokens, completion_tokens,
    prompt_tokens_details.cached_tokens)``, a count given as null counting 0; ``finish_reason`` ``"stop"`` gives
    ``GenerateReason.MODEL_STOP`` and ``"tool_calls"`` ``TOOL_CALLS`` (any other,
    such as ``"length"``, sets none: :func:`stop_reason` gives it).  A refusal with no content (``null``, or
    blank text) and no tool calls is also the message's text, as is an audio answer's transcript; the
    audio goes into the next request by its id.  What describes the answer and goes into no request
    is kept in ``metadata["openai"]["response"]``: the whole audio under ``"audio"``, the message's
    ``annotations`` (url citations), the completion's other fields, and the choice's
    (``finish_reason``, ``index``, ``logprobs``) under ``"choice"``.  Malformed input raises
    :class:`~agentscope_py.DecodeError` naming the path.
    """
    if type(choice) is not int:
        raise ArgumentTypeError(f"choice must be the index of a choice (an int), got {describe(choice)}")
    with nesting_guard(""):
        answer = _plain(completion, _OPENAI_STREAMED)
        if "choices" not in answer and answer.get("object") == "response":
            raise DecodeError(
                "this is a Responses API answer (client.responses.create); from_openai_response reads "
                "a Chat Completions answer (client.chat.completions.create)",
                "object",
            )
        if answer.get("object") == "chat.completion.chunk":
            raise DecodeError(
                "this is a streaming chunk (chat.completion.chunk), which from_openai_response does not read: "
                "give it the whole answer, as the SDK assembles it (with client.chat.completions.stream(...) "
                "as stream: stream.get_final_completion())",
                "object",
            )
        answer_of = model_answer(answer)
        if answer_of is not None and answer_of.reader not in (None, "from_openai_response"):
            raise DecodeError(f"this is {answer_of.what}; {answer_of.advice}", "")
        if "choices" not in answer and "role" in answer:
            raise DecodeError(
                "missing required key 'choices': this is a message, not the whole answer; give "
                "from_openai_response the completion (its choices hold the message), or read messages with from_openai",
                "choices",
            )
        choices = req_list(req(answer, "choices", ""), "choices")
        if not 0 <= choice < len(choices):
            raise DecodeError(f"there is no choice {choice}: the completion has {len(choices)}", "choices")
        path = item("choices", choice)
        picked = req_object(choices[choice], path)
        message_path = at(path, "message")
        message_obj = req_object(req(picked, "message", path), message_path)
        # A field an answer gives as null is one it does not have, though a request may spell absence so
        # (which from_openai keeps, for the request it reads); "parsed" is the content again, read by
        # the SDK's parse().
        message_obj = {key: value for key, value in message_obj.items() if value is not None and key != "parsed"}
        role = req_str(req(message_obj, "role", message_path), at(message_path, "role"))
        if role != "assistant":
            raise DecodeError(f"expected the role 'assistant', got {elided(role)}", at(message_path, "role"))
        # Read as the request reader reads it: a refusal with no content is the message's text, and
        # so is an audio answer's transcript, the audio kept by its id and, whole, in "response".
        message = _openai_read.read_assistant(message_obj, message_path, {})
        reason = opt_str(picked.get("finish_reason"), at(path, "finish_reason"))
        usage_obj = opt_dict(sdk_json(answer.get("usage")), "usage")
        usage = None if usage_obj is None else openai_usage(usage_obj)
        kept = {key: sdk_json(value) for key, value in answer.items() if key != "choices"}
        kept["choice"] = {key: sdk_json(value) for key, value in picked.items() if key != "message"}
        return _answer(message, _openai_read.FMT, kept, usage, _OPENAI_REASONS.get(reason or ""))


def stop_reason(message: Msg) -> str | None:
    """Why the provider ended the answer ``message`` was read from, in its own words: OpenAI's
    ``finish_reason`` (``"stop"``, ``"length"``, ``"content_filter"`` …) or Anthropic's ``stop_reason``
    (``"end_turn"``, ``"max_tokens"``, ``"refusal"`` …); ``None`` for a message read from no answer,
    or from one that gave none.

    ``get_generate_reason()`` records only a stop or a tool call, and says ``MODEL_STOP`` where
    nothing was recorded: a truncated answer is told from a finished one by this.
    """
    if not isinstance(message, Msg):
        # The answer itself (a ChatCompletion, say) is the likely mistake: this reads what its reader kept.
        raise ArgumentTypeError(
            f"stop_reason takes a message, got {describe(message)}; pass the one that from_openai_response "
            "or from_anthropic_response gave for the answer"
        )
    for fmt, keys in ((_openai_read.FMT, ("choice", "finish_reason")), (_anthropic_read.FMT, ("stop_reason",))):
        value: object = message.metadata.get(fmt)
        for key in (RESPONSE_KEY, *keys):
            value = value.get(key) if isinstance(value, Mapping) else None
        if isinstance(value, str):
            return value
    return None


def openai_usage(usage: Mapping[str, Any]) -> ChatUsage:
    """A Chat Completions ``usage`` object as a :class:`ChatUsage` (also for a stream's last chunk)."""
    details = opt_dict(usage.get("prompt_tokens_details"), "usage.prompt_tokens_details") or {}
    return read_usage(
        "usage",
        _count(usage, "prompt_tokens"),
        _count(usage, "completion_tokens"),
        opt_int(details.get("cached_tokens"), "usage.prompt_tokens_details.cached_tokens") or 0,
    )


def _count(usage: Mapping[str, Any], key: str) -> int:
    """A token count the usage must give: null reads as 0, as a cache count left out does, since a
    server that counts no tokens of a kind gives no reason to drop the answer (its own figures stay
    in ``"response"``)."""
    return opt_int(req(usage, key, "usage"), f"usage.{key}") or 0


def from_anthropic_response(message: Any) -> AssistantMessage:
    """The message of an Anthropic Messages answer (``client.messages.create(...)``).

    ``usage`` gives a :class:`ChatUsage` whose ``input_tokens`` count every input
    token, as OpenAI's do: ``input_tokens + cache_creation_input_tokens +
    cache_read_input_tokens``, of which ``cache_read_input_tokens`` are
    ``cached_tokens``.  ``stop_reason`` ``"end_turn"`` or ``"stop_sequence"`` gives
    ``GenerateReason.MODEL_STOP``, ``"tool_use"`` ``TOOL_CALLS`` (any other, such as
    ``"max_tokens"``, sets none: :func:`stop_reason` gives it); a count given as null counts 0.  Blocks
    only Anthropic understands (a server tool's) are kept whole, in place, as ``from_anthropic``
    keeps them, so that an answer stopped with ``"pause_turn"`` goes back as it came.  The answer's
    other fields are kept in ``metadata["anthropic"]["response"]``.  Malformed input raises
    :class:`~agentscope_py.DecodeError` naming the path.
    """
    with nesting_guard(""):
        answer = _plain(message, _ANTHROPIC_STREAMED)
        answer_of = model_answer(answer)
        if answer_of is not None and answer_of.reader != "from_anthropic_response":
            raise DecodeError(f"this is {answer_of.what}; {answer_of.advice}", "")
        kind = answer.get("type", "message")
        if kind != "message":
            # Named by its JSON kind unless it is a string: a tuple built in Python reads as its array.
            plain = as_plain(kind)
            if type(plain) is str and plain in _ANTHROPIC_STREAM_EVENTS:
                raise DecodeError(
                    f"this is a streaming event ({plain!r}), which from_anthropic_response does not read: give it "
                    "the whole answer, as the SDK assembles it (with client.messages.stream(...) as stream: "
                    "stream.get_final_message())",
                    "type",
                )
            got = elided(plain) if type(plain) is str else json_kind(plain)
            raise DecodeError(f"expected an answer of type 'message', got {got}", "type")
        role = req_str(req(answer, "role", ""), "role")
        if role != "assistant":
            raise DecodeError(f"expected the role 'assistant', got {elided(role)}", "role")
        content = as_plain(answer.get("content"))  # a tuple or another mapping too, as a document built in Python
        if type(content) is list:
            # A model_dump() of the SDK's answer writes null for every field left unset (caller,
            # citations …): those the reader keeps as they came are read as unset, so that the next
            # request does not send them back.
            answer = {**answer, "content": [_set_fields(block) for block in content]}
        (read,) = _anthropic_read.read_turn(answer, "", "assistant", {})
        assert isinstance(read, AssistantMessage)  # an assistant turn is one message
        reason = opt_str(answer.get("stop_reason"), "stop_reason")
        usage_obj = opt_dict(sdk_json(answer.get("usage")), "usage")
        usage = None if usage_obj is None else anthropic_usage(usage_obj)
        # An SDK object in a dict built around them (dict(message)): kept as the JSON it holds.
        kept = {key: sdk_json(value) for key, value in answer.items() if key not in ("role", "content")}
        return _answer(read, _anthropic_read.FMT, kept, usage, _ANTHROPIC_REASONS.get(reason or ""))


def _set_fields(block: object) -> object:
    block = as_plain(block)
    if type(block) is not dict:
        return block  # refused by the reader, by its path
    kind = as_plain(block.get("type"))  # a str subclass in a document built in Python
    read = _anthropic_read.READ_FIELDS.get(kind, ()) if type(kind) is str else ()
    # The fields kept as they came lose their nulls; the fields read are the reader's to judge, and the
    # nulls inside a kept field are its own (a citation's document_title, which a request requires).
    return {key: value for key, value in block.items() if value is not None or key in read or key == "type"}


def anthropic_usage(usage: Mapping[str, Any]) -> ChatUsage:
    """A Messages API ``usage`` object as a :class:`ChatUsage`: the input counts the cached tokens too."""
    fresh = _count(usage, "input_tokens")
    written = opt_int(usage.get("cache_creation_input_tokens"), "usage.cache_creation_input_tokens") or 0
    read = opt_int(usage.get("cache_read_input_tokens"), "usage.cache_read_input_tokens") or 0
    output = _count(usage, "output_tokens")
    return read_usage("usage", fresh + written + read, output, read)


# What to do with a stream given for the whole answer.
_OPENAI_STREAMED = (
    "give each chunk to OpenAIStreamRelay, or read the whole answer with stream.get_final_completion() "
    "of client.chat.completions.stream(...)"
)
_ANTHROPIC_STREAMED = (
    "give each event to AnthropicStreamRelay, or read the whole answer with stream.get_final_message() "
    "of client.messages.stream(...)"
)


def _plain(answer: object, streamed: str) -> dict[str, Any]:
    """The answer as a dict; an SDK object as the JSON the server sent (see ``sdk_json``), and so a
    plain ``model_dump()`` of one, whose times are Python's (``_as_json``).  ``streamed``: what to do
    with a stream, given instead."""
    if isinstance(answer, (str, bytes, bytearray)):
        raise DecodeError("expected the answer as a dict or the SDK's object, got JSON text: parse it first, json.loads(text)")
    if isinstance(answer, (Iterator, AsyncIterator)):  # the SDK's Stream (stream=True), or a generator of chunks
        raise DecodeError(f"expected the whole answer, got a stream of it ({type(answer).__name__}): {streamed}")
    plain = req_object(answer, "")
    if not isinstance(answer, Mapping):
        return plain  # an SDK object, read as its JSON: it holds no Python times to look for
    converted = _as_json(plain)
    assert isinstance(converted, dict)  # a dict's copy is one
    return converted


def _as_json(value: object) -> object:
    """``value`` with every date and time in it as its text (``time_as_json``).  What holds none is
    returned as it is."""
    if isinstance(value, (datetime.date, datetime.time)):
        return time_as_json(value)
    if isinstance(value, Mapping):
        items = {key: _as_json(item) for key, item in value.items()}
        changed = any(items[key] is not item for key, item in value.items())
        return items if changed else value
    if isinstance(value, (list, tuple)):
        listed = [_as_json(item) for item in value]
        return listed if any(new is not old for new, old in zip(listed, value, strict=True)) else value
    return value


def _answer(
    message: AssistantMessage,
    fmt: str,
    kept: dict[str, Any],
    usage: ChatUsage | None,
    reason: GenerateReason | None,
) -> AssistantMessage:
    own = message.metadata.get(fmt, {})
    # What the reader kept of the answer already (an audio answer's audio) beside the rest of it.
    metadata = {**message.metadata, fmt: {**own, RESPONSE_KEY: {**own.get(RESPONSE_KEY, {}), **kept}}}
    return AssistantMessage(
        message.content,
        name=message.name,
        metadata=metadata,
        usage=usage,
        generate_reason=reason,
    )
