"""Hypothesis strategies for OpenAI Chat Completions and Anthropic Messages payloads.

Everything generated is a payload the format's SDK types accept (with
``surrogates=False``; with lone surrogates the text is still JSON-shaped but
pydantic refuses it), using every shape the converters claim to keep: string or
list content, refusals, custom tool calls, cache markers, titles, signatures.
Conversations are free-form (tool results need not follow their calls): the
round trip is a property of the mapping, the conversation checks are tested
on their own.  Messages, parts, tool calls and blocks also get fields the
converters do not read (a server's own, or one the SDK added after them), which
must travel verbatim: ``OPENAI_UNREAD`` and ``ANTHROPIC_UNREAD`` name those the
SDK's types do not define.  OpenAI payloads also have optional fields given as
an explicit ``null``, as the SDK's ``model_dump()`` writes them, where a request
may hold one (``nulls=False`` leaves those out: the SDK's request types refuse
some).  ``mutated`` turns a valid payload into a nearly valid one.
``openai_responses`` and ``anthropic_responses`` are the answers of the two
APIs, as their SDKs read them.  ``as_openai_reads_them`` is a conversation as
an OpenAI payload gives it back.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import attrs
from hypothesis import strategies as st
from strategies import json_objects, json_text, json_values

from agentscope_py import Msg, SystemMessage, TextBlock, ToolResultBlock, UserMessage

__all__ = [
    "ANTHROPIC_UNREAD",
    "OPENAI_UNREAD",
    "anthropic_payloads",
    "anthropic_responses",
    "as_openai_reads_them",
    "mutated",
    "openai_payloads",
    "openai_responses",
]

_B64 = st.binary(max_size=24).map(lambda raw: base64.b64encode(raw).decode())
_IDS = st.sampled_from(["call_1", "call_2", "toolu_01A", "x"])
_NAMES = st.sampled_from(["get_weather", "search", "a"])
_HTTP = st.sampled_from(["https://example.com/cat.png", "https://example.com/doc.pdf", "http://x/é?q=1"])


def _text(surrogates: bool) -> st.SearchStrategy[str]:
    return json_text(surrogates=surrogates)


def _words(surrogates: bool) -> st.SearchStrategy[str]:
    """Text that is not blank: Anthropic refuses a blank text block, and to_anthropic leaves one out."""
    return _text(surrogates).filter(str.strip)


# -- OpenAI ----------------------------------------------------------------------

_BREAKPOINT = st.fixed_dictionaries({"mode": st.just("explicit")}, optional={"ttl": st.sampled_from(["30m", "12h"])})
# A field no converter reads, for any object: it must come back as it went in, a null inside it too.
_UNREAD = {"x_extra": st.none() | st.integers(0, 3) | st.fixed_dictionaries({"k": st.none() | st.sampled_from(["a", "b"])})}
#: The fields the OpenAI payloads hold that the SDK's request types do not define: a server's own (a
#: text part's cache_control, reasoning_content …), and a tool message's name, which OpenAI takes.
OPENAI_UNREAD = frozenset({"x_extra", "x_trace", "reasoning_content", "extra_content", "cache_control", "name"})
#: The fields the Anthropic payloads hold that the SDK's request types do not define.
ANTHROPIC_UNREAD = frozenset({"x_extra"})


def _openai_text_part(surrogates: bool) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"type": st.just("text"), "text": _text(surrogates)},
        optional={"prompt_cache_breakpoint": _BREAKPOINT, "cache_control": st.just({"type": "ephemeral"}), **_UNREAD},
    )


def _or_null(values: st.SearchStrategy[Any], nulls: bool) -> st.SearchStrategy[Any]:
    return st.none() | values if nulls else values


def _openai_media_part(nulls: bool) -> st.SearchStrategy[dict[str, Any]]:
    data_url = st.builds(lambda t, d: f"data:{t};base64,{d}", st.sampled_from(["image/png", "image/jpeg"]), _B64)
    image_url = st.fixed_dictionaries(
        {"url": _HTTP | data_url},
        optional={"detail": _or_null(st.sampled_from(["auto", "low", "high"]), nulls), **_UNREAD},
    )
    image = st.fixed_dictionaries({"type": st.just("image_url"), "image_url": image_url}, optional=_UNREAD)
    audio = st.fixed_dictionaries(
        {
            "type": st.just("input_audio"),
            "input_audio": st.fixed_dictionaries(
                {"data": _B64, "format": st.sampled_from(["wav", "mp3"])}, optional=_UNREAD
            ),
        }
    )
    pdf = _B64.map(lambda d: f"data:application/pdf;base64,{d}")
    # The API refuses inline data without a filename; file.pdf is the one to_openai writes for none.
    inline = st.fixed_dictionaries(
        {"file_data": pdf, "filename": _or_null(st.sampled_from(["a.pdf", "file.pdf"]), nulls)},
        optional={"file_id": _or_null(st.just("file-1"), nulls)},
    )
    by_id = st.fixed_dictionaries(
        {"file_id": st.just("file-abc")},
        optional={"filename": _or_null(st.just("b.pdf"), nulls), **({"file_data": st.none()} if nulls else {}), **_UNREAD},
    )
    file = st.fixed_dictionaries({"type": st.just("file"), "file": inline | by_id}, optional=_UNREAD)
    return st.one_of(image, audio, file)


def _content(part: st.SearchStrategy[dict[str, Any]], surrogates: bool) -> st.SearchStrategy[Any]:
    # Not an empty array, which the API refuses (the SDK's types allow it).
    return _text(surrogates) | st.lists(part, min_size=1, max_size=3)


def _openai_arguments(surrogates: bool) -> st.SearchStrategy[str]:
    compact = json_objects(surrogates=surrogates).map(lambda o: json.dumps(o, separators=(",", ":")))
    spaced = json_objects(surrogates=surrogates).map(json.dumps)
    broken = st.sampled_from(["", "{", '{"city": "Par', "[1, 2]", "null", "{'a': 1}"])
    return st.one_of(compact, spaced, broken)


# Gemini's OpenAI-compatible endpoint signs each call, and wants the signature back.
_SIGNED = {"extra_content": st.fixed_dictionaries({"google": st.fixed_dictionaries({"thought_signature": _B64})}), **_UNREAD}


def _openai_tool_call(surrogates: bool) -> st.SearchStrategy[dict[str, Any]]:
    function = st.fixed_dictionaries(
        {
            "id": _IDS,
            "type": st.just("function"),
            "function": st.fixed_dictionaries({"name": _NAMES, "arguments": _openai_arguments(surrogates)}, optional=_UNREAD),
        },
        optional=_SIGNED,
    )
    custom = st.fixed_dictionaries(
        {
            "id": _IDS,
            "type": st.just("custom"),
            "custom": st.fixed_dictionaries({"name": _NAMES, "input": _text(surrogates)}, optional=_UNREAD),
        },
        optional=_SIGNED,
    )
    return function | custom


_CITATION = st.fixed_dictionaries(
    {
        "type": st.just("url_citation"),
        "url_citation": st.fixed_dictionaries(
            {"start_index": st.just(0), "end_index": st.just(4), "title": st.just("A page"), "url": _HTTP}
        ),
    }
)
_FUNCTION_CALL = st.fixed_dictionaries({"name": _NAMES, "arguments": st.just("{}")})


# Keys some OpenAI-compatible servers add to messages (DeepSeek's and vLLM's reasoning_content, say).
_EXTENSIONS = {"reasoning_content": _text(False), "x_trace": st.fixed_dictionaries({"id": _IDS, "spans": st.lists(_IDS, max_size=2)})}


def _openai_optional(answer: bool) -> dict[str, st.SearchStrategy[Any]]:
    return {"name": _or_null(_NAMES, answer), **_EXTENSIONS}


def _openai_assistant(surrogates: bool, nulls: bool, *, answer: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    """An assistant message of a request, or (``answer``) of an answer, which alone has annotations (no
    request message has them, and to_openai writes none), and whose model_dump() also writes the nulls
    no request holds: name and tool_calls (no Optional there), annotations."""
    refusal_part = st.fixed_dictionaries({"type": st.just("refusal"), "refusal": _text(surrogates)}, optional=_UNREAD)
    return st.fixed_dictionaries(
        {"role": st.just("assistant")},
        optional={
            "content": st.none() | _content(_openai_text_part(surrogates) | refusal_part, surrogates),
            "refusal": st.none() | _text(surrogates),
            "audio": _or_null(st.fixed_dictionaries({"id": st.just("audio_1")}), nulls),
            "function_call": _or_null(_FUNCTION_CALL, nulls),
            **({"annotations": _or_null(st.lists(_CITATION, max_size=2), True)} if answer else {}),
            "tool_calls": _or_null(st.lists(_openai_tool_call(surrogates), min_size=1, max_size=3), answer),
            **_openai_optional(answer),
        },
    )


def _openai_message(surrogates: bool, nulls: bool) -> st.SearchStrategy[dict[str, Any]]:
    text_part = _openai_text_part(surrogates)
    optional = _openai_optional(answer=False)
    system = st.fixed_dictionaries(
        {"role": st.sampled_from(["system", "developer"]), "content": _content(text_part, surrogates)}, optional=optional
    )
    user = st.fixed_dictionaries(
        {"role": st.just("user"), "content": _content(text_part | _openai_media_part(nulls), surrogates)}, optional=optional
    )
    tool = st.fixed_dictionaries(
        {"role": st.just("tool"), "tool_call_id": _IDS, "content": _content(text_part, surrogates)}, optional=optional
    )
    return st.one_of(system, user, _openai_assistant(surrogates, nulls), tool)


def openai_payloads(*, surrogates: bool = True, nulls: bool = True) -> st.SearchStrategy[list[dict[str, Any]]]:
    """A Chat Completions ``messages`` list."""
    return st.lists(_openai_message(surrogates, nulls), max_size=6)


def as_openai_reads_them(messages: list[Msg]) -> list[Msg]:
    """``messages`` as ``from_openai`` reads back what ``to_openai`` wrote of them: a system or user
    message or a tool result holding nothing is written as ``""``, the API refusing an empty array,
    which reads as one empty text."""
    nothing = [TextBlock("")]
    return [
        message.with_content(
            attrs.evolve(block, output=nothing) if isinstance(block, ToolResultBlock) and not block.output else block
            for block in (message.content or (nothing if isinstance(message, (SystemMessage, UserMessage)) else []))
        )
        for message in messages
    ]


# Up to a third of a Java int: an Anthropic input count is the sum of three (test_interop_responses
# shows a sum past a Java int refused).
_TOKENS = st.integers(min_value=0, max_value=(2**31 - 1) // 3)


@st.composite
def openai_responses(draw: st.DrawFn, *, surrogates: bool = True) -> dict[str, Any]:
    """A ``ChatCompletion``: one to three choices of assistant messages, usage or none."""
    assistant = _openai_assistant(surrogates, nulls=True, answer=True)
    answer_audio = st.fixed_dictionaries(
        {"id": st.just("audio_1"), "data": st.just("UklGRg=="), "expires_at": _TOKENS, "transcript": _text(surrogates)}
    )
    choices: list[dict[str, Any]] = [
        {
            "index": index,
            "finish_reason": draw(st.sampled_from(["stop", "length", "tool_calls", "content_filter", "function_call"])),
            "logprobs": None,
            "message": draw(assistant),
        }
        for index in range(draw(st.integers(min_value=1, max_value=3)))
    ]
    for choice in choices:  # an audio answer has its data and transcript, which no request has
        if choice["message"].get("audio") is not None and draw(st.booleans()):
            choice["message"]["audio"] = draw(answer_audio)
    response: dict[str, Any] = {
        "id": "chatcmpl-" + draw(_IDS),
        "object": "chat.completion",
        "created": draw(_TOKENS),
        "model": draw(st.sampled_from(["gpt-4o", "deepseek-chat"])),
        "choices": choices,
    }
    if draw(st.booleans()):
        usage: dict[str, Any] = {"prompt_tokens": draw(_TOKENS), "completion_tokens": draw(_TOKENS)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        if draw(st.booleans()):
            usage["prompt_tokens_details"] = {"cached_tokens": draw(_TOKENS)}
        response["usage"] = usage
    if draw(st.booleans()):
        response["system_fingerprint"] = draw(st.none() | st.just("fp_1"))
    return response


# -- Anthropic ----------------------------------------------------------------------

_CACHE = {
    "cache_control": st.fixed_dictionaries({"type": st.just("ephemeral")}, optional={"ttl": st.just("5m")}),
    **_UNREAD,
}
_TRANSFORMATIONS = st.fixed_dictionaries({"oversized_image": st.sampled_from(["downsize", "error"])})


def _anthropic_text(surrogates: bool) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"type": st.just("text"), "text": _words(surrogates)}, optional=_CACHE)


# A file of the Files API, by its id.
_FILE_SOURCE = st.fixed_dictionaries({"type": st.just("file"), "file_id": st.sampled_from(["file_011CNha8", "file_02"])})


def _anthropic_media(surrogates: bool) -> st.SearchStrategy[dict[str, Any]]:
    image_source = st.fixed_dictionaries(
        {"type": st.just("base64"), "media_type": st.sampled_from(["image/png", "image/gif"]), "data": _B64}
    ) | st.fixed_dictionaries({"type": st.just("url"), "url": _HTTP}) | _FILE_SOURCE
    image = st.fixed_dictionaries(
        {"type": st.just("image"), "source": image_source}, optional={**_CACHE, "transformations": _TRANSFORMATIONS}
    )
    document_source = st.one_of(
        st.fixed_dictionaries({"type": st.just("base64"), "media_type": st.just("application/pdf"), "data": _B64}),
        st.fixed_dictionaries({"type": st.just("url"), "url": _HTTP}),
        st.fixed_dictionaries(
            {"type": st.just("text"), "media_type": st.just("text/plain"), "data": _text(surrogates)}
        ),
        _FILE_SOURCE,
    )
    document = st.fixed_dictionaries(
        {"type": st.just("document"), "source": document_source},
        optional={
            **_CACHE,
            "title": st.none() | _text(surrogates),
            "context": st.none() | _text(surrogates),
            "citations": st.fixed_dictionaries({"enabled": st.booleans()}),
        },
    )
    return image | document


def _anthropic_tool_result(surrogates: bool) -> st.SearchStrategy[dict[str, Any]]:
    # Not blank: the API refuses blank text here too, and to_anthropic leaves it out.
    content = _words(surrogates) | st.lists(_anthropic_text(surrogates) | _anthropic_media(surrogates), max_size=3)
    result = st.fixed_dictionaries(
        {"type": st.just("tool_result"), "tool_use_id": _IDS},
        optional={**_CACHE, "content": content, "is_error": st.booleans()},
    )
    # The API takes an error's content as text only ("all content must be type 'text' if 'is_error' is true").
    return result.filter(lambda part: not part.get("is_error") or not _holds_media(part.get("content")))


def _holds_media(content: object) -> bool:
    return isinstance(content, list) and any(part["type"] != "text" for part in content)


def _anthropic_user(surrogates: bool) -> st.SearchStrategy[Any]:
    block = st.one_of(_anthropic_text(surrogates), _anthropic_media(surrogates), _anthropic_tool_result(surrogates))
    return _words(surrogates) | st.lists(block, max_size=4)


# Citations as a request holds them: a title that may be null, but is there (Required[Optional[str]]).
_ANTHROPIC_CITATION = st.one_of(
    st.fixed_dictionaries({
        "type": st.just("char_location"), "cited_text": st.just("Paris"), "document_index": st.just(0),
        "document_title": st.none() | st.just("Doc"), "start_char_index": st.just(0), "end_char_index": st.just(5),
    }),
    st.fixed_dictionaries({
        "type": st.just("web_search_result_location"), "cited_text": st.just("Paris"), "url": _HTTP,
        "title": st.none() | st.just("A page"), "encrypted_index": st.just("Eo8B"),
    }),
)


def _anthropic_assistant(surrogates: bool) -> st.SearchStrategy[Any]:
    cited = st.fixed_dictionaries(
        {"type": st.just("text"), "text": _words(surrogates), "citations": st.lists(_ANTHROPIC_CITATION, min_size=1, max_size=2)},
        optional=_CACHE,
    )
    thinking = st.fixed_dictionaries(
        {"type": st.just("thinking"), "thinking": _text(surrogates), "signature": st.just("EqQBCkYIARgC")},
        optional=_UNREAD,
    )
    redacted = st.fixed_dictionaries(
        {"type": st.just("redacted_thinking"), "data": st.just("EmwKAhgBEgy3")}, optional=_UNREAD
    )
    tool_use = st.fixed_dictionaries(
        {"type": st.just("tool_use"), "id": _IDS, "name": _NAMES, "input": json_objects(surrogates=surrogates)},
        optional=_CACHE,
    )
    block = st.one_of(_anthropic_text(surrogates), cited, thinking, redacted, tool_use)
    return _words(surrogates) | st.lists(block, max_size=4)


@st.composite
def _anthropic_request(draw: st.DrawFn, surrogates: bool) -> dict[str, Any]:
    request: dict[str, Any] = {}
    if draw(st.booleans()):
        request["system"] = draw(_words(surrogates) | st.lists(_anthropic_text(surrogates), max_size=3))
    user, assistant = _anthropic_user(surrogates), _anthropic_assistant(surrogates)
    turns = draw(st.integers(min_value=0, max_value=5))
    request["messages"] = [
        {"role": "user", "content": draw(user)} if index % 2 == 0 else {"role": "assistant", "content": draw(assistant)}
        for index in range(turns)
    ]
    _unique_call_ids(request["messages"])
    if turns and draw(st.booleans()):  # a system message after the first turn: instructions from there on
        content = draw(_words(surrogates) | st.lists(_anthropic_text(surrogates), min_size=1, max_size=2))
        if _says_something(content):  # a blank one is left out: the API refuses blank text
            request["messages"].insert(draw(st.integers(1, turns)), {"role": "system", "content": content})
    _no_trailing_whitespace_at_the_end(request["messages"])
    return request


def _no_trailing_whitespace_at_the_end(messages: list[dict[str, Any]]) -> None:
    """A last assistant turn (the model goes on from it) may not end in whitespace: the API refuses
    it, and to_anthropic leaves the whitespace out."""
    if messages and messages[-1]["role"] == "assistant":
        content = messages[-1]["content"]
        if isinstance(content, str):
            messages[-1]["content"] = content.rstrip()
        elif content and content[-1]["type"] == "text":
            content[-1]["text"] = content[-1]["text"].rstrip()


def _unique_call_ids(messages: list[dict[str, Any]]) -> None:
    """Give a call whose id an earlier turn's call has another, as the API wants each once in a
    request (``to_anthropic`` would write it so); the calls of one turn may share one."""
    earlier: set[str] = set()
    for index, message in enumerate(messages):
        if message["role"] != "assistant" or isinstance(message["content"], str):
            continue
        calls = [block for block in message["content"] if block["type"] == "tool_use"]
        for call in calls:
            if call["id"] in earlier:
                call["id"] = f"{call['id']}_t{index}"
        earlier.update(call["id"] for call in calls)


def _says_something(content: str | list[dict[str, Any]]) -> bool:
    texts = [content] if isinstance(content, str) else [block["text"] for block in content]
    return all(text.strip() for text in texts)


def anthropic_payloads(*, surrogates: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    """``{"system"?: ..., "messages": [...]}`` with alternating user and assistant turns, and maybe a
    system message between them."""
    return _anthropic_request(surrogates)


@st.composite
def anthropic_responses(draw: st.DrawFn, *, surrogates: bool = True) -> dict[str, Any]:
    """A ``Message``: the assistant's answer, its stop reason and usage."""
    usage: dict[str, int | None] = {"input_tokens": draw(_TOKENS), "output_tokens": draw(_TOKENS)}
    for key in ("cache_creation_input_tokens", "cache_read_input_tokens"):
        if draw(st.booleans()):
            usage[key] = draw(st.none() | _TOKENS)
    content = draw(_anthropic_assistant(surrogates))
    if isinstance(content, str):  # an answer's content is always a list of blocks
        content = [{"type": "text", "text": content}]
    return {
        "id": "msg_" + draw(_IDS),
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": draw(st.sampled_from(["end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal"])),
        "stop_sequence": None,
        "usage": usage,
    }


# -- mutations ------------------------------------------------------------------------


def _containers(value: Any, found: list[Any]) -> list[Any]:
    if isinstance(value, (dict, list)):
        found.append(value)
        for child in value.values() if isinstance(value, dict) else value:
            _containers(child, found)
    return found


@st.composite
def mutated(draw: st.DrawFn, payloads: st.SearchStrategy[Any]) -> Any:
    """A valid payload with one container changed: a key dropped, a value or element replaced
    by arbitrary JSON, or a string turned into another type."""
    payload = json.loads(json.dumps(draw(payloads)))  # a private copy to mutate
    containers = _containers(payload, [])
    if not containers:
        return draw(json_values())
    target = draw(st.sampled_from(containers))
    keys = list(target) if isinstance(target, dict) else list(range(len(target)))
    if not keys:
        return payload
    key = draw(st.sampled_from(keys))
    action = draw(st.sampled_from(["replace", "delete", "retype"]))
    if action == "delete":
        del target[key]
    elif action == "retype":
        target[key] = draw(st.sampled_from([None, 0, 1.5, True, "", [], {}, [target[key]]]))
    else:
        target[key] = draw(json_values())
    return payload
