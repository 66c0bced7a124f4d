"""msgspec's typed reading gives what the generic decoder gives, or hands the document back to it.

The typed path (``agentscope_py._codec._typed``) may only ever *accept* a document the generic
decoder accepts, with an equal result; anything else it must hand back (``Fallback``), so that
every error is the generic decoder's, path and all.
"""

from __future__ import annotations

import itertools
import json
import threading
from typing import Any

import pytest
from hypothesis import given
from strategies import json_values, messages
from vectors import CASES, EVENT_CASES, KINDS, mutated_event_vectors, mutated_vectors

from agentscope_py import (
    AgentEvent,
    AssistantMessage,
    ChatUsage,
    ContentBlock,
    DecodeError,
    ImageBlock,
    Msg,
    ReadOnlyError,
    RoleContentError,
    Source,
    TextBlock,
    TextBlockDeltaEvent,
    ToolUseBlock,
    UserMessage,
    VideoBlock,
    _json,
)
from agentscope_py import _ids
from agentscope_py._codec import _context, register, register_union
from agentscope_py._codec._registry import CLASSES, TYPED_DECODERS, UNIONS
from agentscope_py._codec import _typed
from agentscope_py._codec._typed import Fallback, typed_decoder

ROOTS: list[type[Any]] = [
    Msg,
    ContentBlock,
    Source,
    ChatUsage,
    TextBlock,
    ToolUseBlock,
    UserMessage,
    AssistantMessage,
    AgentEvent,
    TextBlockDeltaEvent,
]
CTX = _context(100, False)


def typed(cls: type[Any], text: str | bytes) -> Any:
    decode = typed_decoder(cls)
    assert decode is not None
    return decode(text, CTX)


def generic(cls: type[Any], text: str | bytes) -> Any:
    with _json.use_backend("orjson"):
        return cls.from_json(text)


def agree(cls: type[Any], text: str | bytes) -> bool:
    """Whether both paths accepted ``text`` (with equal results); ``False`` when the typed one
    handed it back.  Fails when the typed path accepts what the generic one refuses."""
    _ids._hex_counter = itertools.count(1)  # a data block without an id gets the same fresh one on both paths
    try:
        fast = typed(cls, text)
    except Fallback:
        return False
    _ids._hex_counter = itertools.count(1)
    try:
        slow = generic(cls, text)
    except (DecodeError, RoleContentError) as error:
        pytest.fail(f"the typed path accepted what the generic decoder refuses ({error}): {text!r}")
    assert fast == slow and type(fast) is type(slow)
    return True


def holds_aliased_blocks(document: Any) -> bool:
    # Image and video blocks read some keys under two names, which structs cannot mirror.
    if isinstance(document, dict):
        return document.get("type") in (ImageBlock.type, VideoBlock.type) or any(map(holds_aliased_blocks, document.values()))
    return isinstance(document, list) and any(map(holds_aliased_blocks, document))


@pytest.mark.parametrize("case", CASES, ids=[case["case"] for case in CASES])
def test_every_java_vector_reads_alike_and_most_take_the_typed_path(case: dict[str, Any]) -> None:
    taken = agree(KINDS[case["kind"]], case["json_text"])
    assert taken == (not holds_aliased_blocks(case["json"]))


@given(message=messages())
def test_generated_messages_take_the_typed_path_unless_they_cannot(message: Msg[Any]) -> None:
    text = message.to_json()
    if not agree(Msg, text):  # handed back only for a reason the structs cannot deal with
        assert holds_aliased_blocks(json.loads(text)) or "\\ud" in text.lower()


@pytest.mark.parametrize("case", EVENT_CASES, ids=[case["case"] for case in EVENT_CASES])
def test_every_java_event_vector_reads_alike(case: dict[str, Any]) -> None:
    agree(AgentEvent, case["json_text"])


def test_most_java_event_vectors_take_the_typed_path() -> None:
    taken = [agree(AgentEvent, case["json_text"]) for case in EVENT_CASES]
    assert sum(taken) >= len(taken) * 0.9


@given(mutated=mutated_event_vectors())
def test_mutated_event_vectors_are_read_alike_or_handed_back(mutated: tuple[type[Any], Any]) -> None:
    _, document = mutated
    agree(AgentEvent, json.dumps(document))


@given(mutated=mutated_vectors())
def test_mutated_vectors_are_read_alike_or_handed_back(mutated: tuple[type[Any], Any]) -> None:
    _, document = mutated
    text = json.dumps(document)
    for root in ROOTS:
        agree(root, text)


@given(document=json_values(max_leaves=30))
def test_arbitrary_json_is_read_alike_or_handed_back(document: Any) -> None:
    text = json.dumps(document)
    for root in ROOTS:
        agree(root, text)


@pytest.mark.parametrize(
    ("cls", "text"),
    [
        (Msg, '{"role": "ASSISTANT", "content": [null, {"type": "text", "text": "x"}]}'),  # Java drops null items
        (Msg, '{"role": "assistant", "content": []}'),  # wrong case
        (Msg, '{"role": "SYSTEM", "content": [{"type": "tool_use", "id": "c"}]}'),  # the role rules
        (ChatUsage, '{"inputTokens": 3.0}'),  # Java writes a whole double as 3.0
        (ChatUsage, '{"time": 1e400}'),
        (Source, '{"type": "base64", "data": "x"}'),  # missing a required key
        (Source, '{"type": "base64", "media_type": null, "data": "x"}'),
        (TextBlock, '{"type": "text", "text": "\\ud800"}'),  # an escaped lone surrogate
        (ContentBlock, '{"type": "TEXT", "text": "x"}'),
        (ContentBlock, '{"type": "tool_use", "state": "PENDING"}'),
        (ToolUseBlock, '{"type": "text", "text": "x"}'),  # another member than the one asked for
        (ContentBlock, '{"type": "tool_use", "input": {"n": ' + "9" * 4301 + "}}"),
        (Msg, "[]"),
        (Msg, "{"),
        (TextBlock, b'{"type": "text", "text": "\xff"}'),  # not UTF-8
        # A list of one member (tool calls) holding another: the generic decoder refuses it.
        (AgentEvent, '{"type": "REQUIRE_USER_CONFIRM", "toolCalls": [{"type": "text", "text": "x"}]}'),
        (AgentEvent, '{"type": "USER_CONFIRM_RESULT", "confirmResults": [{"toolCall": {"type": "text", "text": "x"}}]}'),
    ],
)
def test_what_the_structs_cannot_vouch_for_is_handed_back(cls: type[Any], text: str | bytes) -> None:
    with pytest.raises(Fallback):
        typed(cls, text)


def test_nesting_is_limited_as_in_the_generic_decoder() -> None:
    result = '{"type": "tool_result", "output": [%s]}'
    text = result % ""
    for _ in range(60):
        text = result % text
    assert not agree(ContentBlock, text)  # over the default depth: the generic decoder says so
    with pytest.raises(DecodeError, match="nested deeper than 100 levels"):
        ContentBlock.from_json(text)
    shallow = result % (result % "")
    assert agree(ContentBlock, shallow)


def test_duplicate_keys_resolve_as_everywhere_else_the_last_wins() -> None:
    text = '{"type": "text", "type": "text", "text": "a", "text": "b"}'
    assert agree(ContentBlock, text) and typed(ContentBlock, text) == TextBlock("b")


def test_free_form_values_come_back_frozen_and_exact() -> None:
    text = '{"type": "tool_use", "id": "c", "input": {"n": 123456789012345678901234567890, "deep": {"a": [1, {"b": -0.0}]}}}'
    assert agree(ContentBlock, text)
    block = typed(ContentBlock, text)
    assert block.input["n"] == 123456789012345678901234567890
    with pytest.raises(ReadOnlyError, match=r"^this mapping is read-only"):
        block.input["deep"]["x"] = 1


def test_from_json_takes_the_typed_path_and_falls_back_unnoticed(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    decode = typed_decoder(Msg)
    assert decode is not None

    def spy(text: str | bytes, ctx: Any) -> Any:
        calls.append("typed")
        return decode(text, ctx)

    monkeypatch.setitem(TYPED_DECODERS, Msg, spy)
    good = '{"role": "USER", "content": [{"type": "text", "text": "hi"}]}'
    bad = '{"role": "USER", "content": [{"type": "TEXT", "text": "hi"}]}'
    with _json.use_backend("msgspec"):
        assert Msg.from_json(good) == generic(Msg, good)
        with pytest.raises(DecodeError, match=r"content\[0\].type: unknown ContentBlock type 'TEXT'.*did you mean 'text'"):
            Msg.from_json(bad)
    assert calls == ["typed", "typed"]
    with _json.use_backend("orjson"):
        Msg.from_json(good)
    assert calls == ["typed", "typed"]  # only the msgspec backend reads typed


def test_decoders_made_by_many_threads_at_once_all_work(monkeypatch: pytest.MonkeyPatch) -> None:
    for made in list(TYPED_DECODERS):  # put back when the test ends
        monkeypatch.delitem(TYPED_DECODERS, made)
    builds: list[type] = []
    make = _typed._Generator.decoder

    def counted(self: _typed._Generator, cls: type) -> Any:
        builds.append(cls)
        return make(self, cls)

    monkeypatch.setattr(_typed._Generator, "decoder", counted)
    text = '{"id": "m1", "role": "USER", "content": [{"type": "text", "text": "hi"}], "timestamp": "2025-01-01 00:00:00.000"}'
    barrier = threading.Barrier(8, timeout=10)
    results: list[Any] = [None] * 8

    def first_read(index: int) -> None:
        barrier.wait()
        results[index] = typed(Msg, text)

    threads = [threading.Thread(target=first_read, args=(index,), daemon=True) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert not any(thread.is_alive() for thread in threads), "a thread is still reading"
    expected = generic(Msg, text)
    assert all(result == expected and type(result) is type(expected) for result in results)
    assert builds == [Msg]  # made once, by one thread, while the others waited for it
    assert list(TYPED_DECODERS) == [Msg]


def test_a_registration_empties_the_typed_decoders_made_from_the_declarations_it_replaces() -> None:
    # The typed decoders are made from the declarations: a registration empties them once it has
    # replaced the generic decoders, so no backend reads by a declaration it replaced.  (The spec
    # registered again is the same one: the model stays as it is for the other tests.)
    assert typed_decoder(Msg) is not None and Msg in TYPED_DECODERS
    register(CLASSES[TextBlock])
    assert Msg not in TYPED_DECODERS
    made = typed_decoder(Msg)
    assert made is not None and TYPED_DECODERS[Msg] is made
    register_union(UNIONS[ContentBlock])
    assert TYPED_DECODERS == {}
