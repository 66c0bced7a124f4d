"""agent-swarm-kit: payloads come back exactly, one tool message per result, raw arguments kept."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Sequence
from typing import Any

import attrs
import pytest
from framework_payloads import comparable, seed, swarm_kit_payloads
from hypothesis import given
from hypothesis import strategies as st
from strategies import json_text

from agentscope_py import (
    ArgumentTypeError,
    AssistantMessage,
    Base64Source,
    DataBlock,
    DecodeError,
    HintBlock,
    Msg,
    MsgRole,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolResultMessage,
    ToolResultState,
    ToolUseBlock,
    UnsupportedContentError,
    URLSource,
    UserMessage,
)
from agentscope_py.interop import ProblemKind, from_swarm_kit, to_openai, to_swarm_kit, validate_conversation

SEED = seed("swarm_kit_seed.json")["messages"]


def test_seed_examples_come_back_exactly() -> None:
    original = copy.deepcopy(SEED)
    assert to_swarm_kit(from_swarm_kit(SEED)) == original
    assert SEED == original


def test_seed_messages_read_as_agentscope_messages() -> None:
    system, user, call, result, navigate, _, resque, flush, hello = from_swarm_kit(SEED)
    # agentName is the agent whose history it is: only an assistant message's name.
    assert isinstance(system, SystemMessage) and system.name is None
    assert system.metadata["swarm_kit"] == {"agentName": "triage_agent"}
    assert isinstance(user, UserMessage) and user.name is None
    assert user.content[1] == DataBlock(Base64Source("image/png", "iVBORw0KGgo="), id=user.content[1].id)  # type: ignore[union-attr]
    payload = {"image_id": "3f1d2c4e-0b8a-4c5e-9d7f-1a2b3c4d5e6f"}
    assert user.metadata["swarm_kit"] == {"payload": payload, "agentName": "triage_agent"}
    assert call.name == "triage_agent" and hello.name == "sales_agent"
    (tool_call,) = call.content
    assert isinstance(tool_call, ToolUseBlock)
    assert tool_call == ToolUseBlock("tool-id", "func", {"key": "value"}, metadata=tool_call.metadata)
    assert set(tool_call.metadata["swarm_kit"]) == {"absent"} and set(tool_call.metadata["swarm_kit"]["absent"]) == {"type"}
    assert isinstance(result, ToolResultMessage) and result.name is None
    carrying = {"swarm_kit": {"agentName": "triage_agent"}}
    assert result.content == (ToolResultBlock("tool-id", "func", TextBlock("done"), carrying, ToolResultState.SUCCESS),)
    raw_call = navigate.content[0]
    assert isinstance(raw_call, ToolUseBlock)
    assert (raw_call.content, dict(raw_call.input)) == ('{"reason": "wants a quote"}', {"reason": "wants a quote"})
    assert isinstance(resque, SystemMessage) and resque.metadata["swarm_kit"]["role"] == "resque"
    assert flush.get_text_content() == ""
    assert hello.id != system.id and hello.timestamp is None  # fresh ids; swarm-kit has no timestamps


def test_a_developer_message_is_a_system_message_that_goes_back_as_one() -> None:
    # ClientAgent.commitDeveloperMessage puts the application's instructions in the history so.
    payload = [{"role": "developer", "agentName": "triage_agent", "content": "Answer in French.", "mode": "tool"}]
    (message,) = from_swarm_kit(payload)
    assert isinstance(message, SystemMessage) and message.get_text_content() == "Answer in French."
    assert to_swarm_kit([message]) == payload


# -- what swarm-kit 6.0.0 wrote in a real run (tests/data/interop/swarm_kit_runtime.json) ----------

RUNTIME = seed("swarm_kit_runtime.json")["histories"]


@pytest.mark.parametrize("name", sorted(RUNTIME))
def test_histories_of_a_real_run_come_back_exactly(name: str) -> None:
    original = copy.deepcopy(RUNTIME[name])
    assert to_swarm_kit(from_swarm_kit(RUNTIME[name])) == original


def test_a_real_run_reads_as_the_conversation_it_was() -> None:
    read = from_swarm_kit(RUNTIME["raw"])
    shapes = [(m.role.value if m.role else "", m.name, tuple(b.type for b in m.content)) for m in read]
    text, call, result = ("text",), ("tool_use",), ("tool_result",)
    user, agent = ("USER", None), ("ASSISTANT", "agent-a")
    system = ("SYSTEM", None)
    assert shapes[:9] == [
        (*user, text), (*agent, text), (*user, text),
        (*agent, ("text", "tool_use", "tool_use")),
        ("TOOL", None, ("tool_result", "tool_result")),
        (*system, text),  # the tool's commitSystemMessage, read before both results
        (*user, text), (*agent, text),  # executeForce("continue"), the answer
        (*system, text),  # commitDeveloperMessage
    ]
    assert shapes[14:19] == [(*agent, call), ("TOOL", None, result), (*system, text), (*user, text), (*agent, text)]
    notes = [m for m in read if m.get_text_content().startswith("weather fetched")]
    assert [m.metadata["swarm_kit"]["layout"] for m in notes] == [
        {"before_result": 0, "tool_call_id": "call_w1"},
        {"before_result": 0, "tool_call_id": "call_s1"},
    ]
    # After navigation, agent-b's: the user messages (the navigation's executeForce too) are no agent's words.
    assert {m["agentName"] for m in RUNTIME["raw"][-4:]} == {"agent-b"}
    assert [m.name for m in read[-4:]] == [None, "agent-b", None, "agent-b"]


def test_what_the_agent_of_a_real_run_saw_goes_to_openai() -> None:
    # Before the flush, and after the resque (the call to an unknown tool before it has no result:
    # that is why swarm-kit recovered); to_openai raised where a tool's system message stood.
    raw = RUNTIME["raw"]
    flush = next(index for index, message in enumerate(raw) if message["role"] == "flush")
    for stretch in (raw[:flush], RUNTIME["openai_shaped"]):
        messages = from_swarm_kit(stretch)
        assert {p.kind for p in validate_conversation(messages)} <= {ProblemKind.LATE_SYSTEM_MESSAGE}
        sent = to_openai(messages)
        assert not [m for m in sent if m["role"] == "user" and "name" in m]  # the user's words are no agent's
    assert to_openai(from_swarm_kit(raw, since_reset=True))[0] == {"role": "user", "content": "Start the conversation"}


# -- a system message where calls wait for their results -------------------------------------------

_ASKING = {
    "role": "assistant", "agentName": "a", "content": "Let me check.", "mode": "tool",
    "tool_calls": [
        {"id": "w", "type": "function", "function": {"name": "weather", "arguments": {"city": "Paris"}}},
        {"id": "t", "type": "function", "function": {"name": "time", "arguments": {}}},
    ],
}
_NOTE = {"role": "system", "agentName": "a", "content": "weather fetched", "mode": "tool"}  # a tool's commitSystemMessage
_W = {"role": "tool", "agentName": "a", "content": "sunny", "mode": "tool", "tool_call_id": "w"}
_T = {"role": "tool", "agentName": "a", "content": "12:00", "mode": "tool", "tool_call_id": "t"}
_NEXT = {"role": "user", "agentName": "a", "content": "continue", "mode": "tool"}


@pytest.mark.parametrize(
    "payload",
    [[_ASKING, _NOTE, _W, _T, _NEXT], [_ASKING, _W, _NOTE, _T], [_ASKING, _NOTE, {**_NOTE, "content": "again"}, _W, _NOTE, _T]],
    ids=["before-the-results", "between-them", "several"],
)
def test_a_system_message_between_calls_and_results_comes_after_them(payload: list[dict[str, Any]]) -> None:
    # swarm-kit sends its model every system message first (ClientHistory.toArrayForAgent): where it
    # stands means nothing to it, but kept there it would part the calls from their results.
    messages = from_swarm_kit(payload)
    results, *notes = messages[1 : 2 + sum(m["role"] == "system" for m in payload)]
    assert isinstance(results, ToolResultMessage) and [b.id for b in results.get_content_blocks(ToolResultBlock)] == ["w", "t"]
    assert all(isinstance(note, SystemMessage) for note in notes)
    assert all(p.kind is ProblemKind.LATE_SYSTEM_MESSAGE for p in validate_conversation(messages))
    to_openai(messages)  # no ConversationError
    assert to_swarm_kit(messages) == payload


def test_a_system_message_read_after_the_results_goes_back_where_it_now_is_once_they_change() -> None:
    calls, results, note = from_swarm_kit([_ASKING, _NOTE, _W, _T])
    assert isinstance(results, ToolResultMessage)
    w, t = results.get_content_blocks(ToolResultBlock)
    hi = {"role": "user", "agentName": "", "content": "hi", "mode": "user"}
    # Written as _NOTE: the mark of where it was is no field of swarm-kit's.
    edits = {
        "results removed": ([calls, note], [_ASKING, _NOTE]),
        "first result removed": ([calls, results.with_content([t]), note], [_ASKING, _T, _NOTE]),
        "its result given another id": (
            [calls, results.with_content([attrs.evolve(w, id="w2"), t]), note],
            [_ASKING, {**_W, "tool_call_id": "w2"}, _T, _NOTE],
        ),
        "a message put between": ([calls, results, UserMessage("hi"), note], [_ASKING, _W, _T, hi, _NOTE]),
        "moved to the front": ([note, calls, results], [_NOTE, _ASKING, _W, _T]),
        "the calls removed": ([results, note], [_W, _T, _NOTE]),
    }
    for name, (messages, expected) in edits.items():
        assert to_swarm_kit(messages) == expected, name


def test_only_system_messages_move_as_swarm_kit_sends_a_developer_one_where_it_stands() -> None:
    developer = {**_NOTE, "role": "developer"}
    payload = [_ASKING, developer, _W, _T]
    calls, read_developer, results = from_swarm_kit(payload)
    assert isinstance(read_developer, SystemMessage) and isinstance(results, ToolResultMessage)
    assert to_swarm_kit([calls, read_developer, results]) == payload
    # Not after a message without calls, nor when no result follows.
    for unmoved in ([{**_ASKING, "tool_calls": []}, _NOTE, _W], [_ASKING, _NOTE, _NEXT]):
        assert [m.role for m in from_swarm_kit(unmoved)][1] is MsgRole.SYSTEM
        assert "layout" not in from_swarm_kit(unmoved)[1].metadata.get("swarm_kit", {})


@given(swarm_kit_payloads())
def test_payloads_come_back_exactly(payload: list[dict[str, Any]]) -> None:
    assert to_swarm_kit(from_swarm_kit(payload)) == payload


# -- messages swarm-kit can hold come back equal (but for ids, timestamps and metadata) ---------

_TEXT = json_text(max_size=12)
_NAMES = st.none() | _TEXT.filter(bool)
_PNG = st.builds(DataBlock, st.builds(Base64Source, st.just("image/png"), st.sampled_from(["iVBORw0KGgo=", "iVBORw0KGgoAAAA"])))
# A call is held as an object, or as raw text (whose object is what the text parses to).
_RAW_ARGUMENTS = {'{"x": 1}': {"x": 1}, "{ }": {}}
_CALLS = st.builds(
    ToolUseBlock, st.sampled_from(["a", "b"]), _TEXT, st.dictionaries(_TEXT, st.integers(), max_size=2)
) | st.builds(
    lambda call_id, name, raw: ToolUseBlock(call_id, name, _RAW_ARGUMENTS[raw], raw),
    st.sampled_from(["a", "b"]),
    _TEXT,
    st.sampled_from(sorted(_RAW_ARGUMENTS)),
)


@st.composite
def _assistant(draw: st.DrawFn) -> AssistantMessage:
    text = draw(_TEXT)
    images = draw(st.lists(_PNG, max_size=2))
    calls = draw(st.lists(_CALLS, max_size=2))
    content = [TextBlock(text)] if text or not (images or calls) else []
    return AssistantMessage([*content, *images, *calls], name=draw(_NAMES))


@st.composite
def _tool(draw: st.DrawFn) -> ToolResultMessage:
    results = []
    for _ in range(draw(st.integers(1, 3))):
        text = draw(_TEXT)
        images = draw(st.lists(_PNG, max_size=1))
        output = [TextBlock(text)] if text or not images else []
        results.append(ToolResultBlock(draw(st.sampled_from(["r1", "r2"])), None, [*output, *images], state=ToolResultState.SUCCESS))
    return ToolResultMessage(results, name=draw(_NAMES))


def _user(text: str, images: list[DataBlock], name: str | None) -> UserMessage:
    # Empty content next to images reads as no text block at all.
    return UserMessage([TextBlock(text)] if text or not images else [], *images, name=name)


_MESSAGES = st.one_of(
    st.builds(_user, _TEXT, st.lists(_PNG, max_size=2), _NAMES),
    st.builds(lambda text, name: SystemMessage(text, name=name), _TEXT, _NAMES),
    _assistant(),
    _tool(),
)


def _no_two_tool_messages_in_a_row(messages: Sequence[Msg[Any]]) -> bool:
    return not any(isinstance(a, ToolResultMessage) and isinstance(b, ToolResultMessage) for a, b in itertools.pairwise(messages))


def _no_system_message_where_calls_wait(messages: Sequence[Msg[Any]]) -> bool:
    # One there comes back after the results (see test_a_system_message_between_calls_and_results_comes_after_them).
    waiting = False
    for message in messages:
        if message.role is MsgRole.SYSTEM and waiting:
            return False
        if message.role is not MsgRole.TOOL:
            waiting = message.role is MsgRole.ASSISTANT and bool(message.get_content_blocks(ToolUseBlock))
    return True


@given(st.lists(_MESSAGES, max_size=4).filter(_no_two_tool_messages_in_a_row).filter(_no_system_message_where_calls_wait))
def test_messages_come_back_equal(messages: list[Msg[Any]]) -> None:
    back = from_swarm_kit(to_swarm_kit(messages))
    expected = [comparable(_as_swarm_kit_holds(m), ids=False, timestamps=False) for m in messages]
    assert [comparable(m, ids=False, timestamps=False) for m in back] == expected


def _as_swarm_kit_holds(message: Msg[Any]) -> Msg[Any]:
    # agentName holds an assistant's name only: another message's (a user's, a tool's) is no agent's.
    return _without_raw_arguments(message if message.role is MsgRole.ASSISTANT else message.__replace__(name=None))


def _without_raw_arguments(message: Msg[Any]) -> Msg[Any]:
    # swarm-kit holds arguments as an object: raw text read from elsewhere is not carried.
    return message.with_content(
        [ToolUseBlock(b.id, b.name, b.input) if isinstance(b, ToolUseBlock) else b for b in message.content]
    )


def test_arguments_go_as_an_object_unless_they_came_as_text() -> None:
    streamed = ToolUseBlock("c", "f", {"city": "Paris"}, '{"city": "Paris"}')  # as OpenAI sends them
    sent = to_swarm_kit([AssistantMessage(streamed)])
    assert sent[0]["tool_calls"][0]["function"]["arguments"] == {"city": "Paris"}
    as_text = [{"role": "assistant", "agentName": "a", "content": "", "mode": "tool",
                "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"x" : 1}'}}]}]
    (message,) = from_swarm_kit(as_text)
    assert to_swarm_kit([message]) == as_text
    call = message.content[0]
    assert isinstance(call, ToolUseBlock)
    edited = message.with_content([ToolUseBlock(call.id, call.name, {"x": 2}, call.content, call.metadata)])
    assert to_swarm_kit([edited])[0]["tool_calls"][0]["function"]["arguments"] == '{"x":2}'


def test_arguments_only_raw_text_says_are_unsupported() -> None:
    garbled = [AssistantMessage(ToolUseBlock("c", "f", None, "{not json"))]
    with pytest.raises(
        UnsupportedContentError,
        match=r"cannot hold a ToolUseBlock whose arguments are not a JSON object \(messages\[0\]\.content\[0\]\)",
    ):
        to_swarm_kit(garbled)
    sent = to_swarm_kit(garbled, on_unsupported="text")
    assert "tool_calls" not in sent[0] and sent[0]["content"] == "[tool call f c: {not json]"


# -- tool results ------------------------------------------------------------------------------


def test_each_result_is_a_tool_message_and_consecutive_ones_merge_back() -> None:
    message = AssistantMessage(
        ToolUseBlock("a", "f", {"x": 1}),
        ToolUseBlock("b", "g", {"raw": True}, '{"raw" : true}'),
        ToolResultBlock("a", "f", TextBlock("one"), state=ToolResultState.SUCCESS),
        ToolResultBlock("b", "g", TextBlock("two"), state=ToolResultState.SUCCESS),
        name="agent",
    )
    sent = to_swarm_kit([message])
    assert sent == [
        {
            "role": "assistant",
            "agentName": "agent",
            "content": "",
            "mode": "tool",
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}},
                {"id": "b", "type": "function", "function": {"name": "g", "arguments": {"raw": True}}},
            ],
        },
        {"role": "tool", "agentName": "agent", "content": "one", "mode": "tool", "tool_call_id": "a"},
        {"role": "tool", "agentName": "agent", "content": "two", "mode": "tool", "tool_call_id": "b"},
    ]
    call_message, results = from_swarm_kit(sent)
    assert call_message.content == (message.content[0], ToolUseBlock("b", "g", {"raw": True}))
    assert isinstance(results, ToolResultMessage)
    read_results = results.get_content_blocks(ToolResultBlock)
    assert [attrs.evolve(block, metadata={}) for block in read_results] == list(message.content[2:])


def test_results_of_calls_sharing_an_id_are_named_after_the_calls_in_order() -> None:
    # Each result answers the earliest call of its id not answered yet, as validate_conversation pairs them.
    calls = [{"id": "c1", "type": "function", "function": {"name": name, "arguments": {}}} for name in ("read_file", "delete_file")]
    sent = [
        {"role": "assistant", "agentName": "x", "content": "", "mode": "tool", "tool_calls": calls},
        {"role": "tool", "agentName": "x", "content": "contents of a", "mode": "tool", "tool_call_id": "c1"},
        {"role": "tool", "agentName": "x", "content": "deleted b", "mode": "tool", "tool_call_id": "c1"},
    ]
    _, results = from_swarm_kit(sent)
    assert [(block.name, block.output) for block in results.get_content_blocks(ToolResultBlock)] == [
        ("read_file", (TextBlock("contents of a"),)),
        ("delete_file", (TextBlock("deleted b"),)),
    ]
    assert to_swarm_kit(from_swarm_kit(sent)) == sent


def test_a_long_run_of_tool_messages_is_one_tool_message_of_its_results_in_order() -> None:
    # Read in one pass (each result used to remake the message: 20,000 took 12 s).
    sent = [{"role": "tool", "agentName": "a", "content": str(i), "mode": "tool", "tool_call_id": f"c{i}"} for i in range(20_000)]
    sent.append({"role": "user", "agentName": "", "content": "next", "mode": "user"})
    results, user = from_swarm_kit(sent)
    assert isinstance(results, ToolResultMessage) and results.name is None
    assert [(block.id, block.output, block.metadata) for block in results.get_content_blocks(ToolResultBlock)] == [
        (f"c{i}", (TextBlock(str(i)),), {"swarm_kit": {"agentName": "a"}}) for i in range(20_000)
    ]
    assert user.get_text_content() == "next"
    assert to_swarm_kit([results, user]) == sent


def test_a_result_without_an_id_is_unsupported_as_swarm_kit_would_send_it_without_tool_call_id() -> None:
    # swarm-kit never writes one, but sends one to its model (a tool message without tool_call_id passes
    # its history filter), whose API rejects it.
    orphan = ToolResultBlock(None, "f", TextBlock("orphan"), state=ToolResultState.SUCCESS)
    messages = [UserMessage("q"), ToolResultMessage(orphan)]
    with pytest.raises(
        UnsupportedContentError,
        match=r"ToolResultBlock without an id \(messages\[1\]\.content\[0\]\): .*give it the id of the call it answers",
    ):
        to_swarm_kit(messages)
    dropped = to_swarm_kit(messages, on_unsupported="drop")
    assert [m["role"] for m in dropped] == ["user"]
    assert [(n.message_index, n.block_index, n.block_type, n.action) for n in dropped.notes] == [(1, 0, "tool_result", "dropped")]
    as_text = to_swarm_kit(messages, on_unsupported="text", agent_name="a")
    assert as_text[1] == {"role": "user", "agentName": "a", "content": "[tool result f None (success)]\norphan", "mode": "tool"}
    assert [(n.block_type, n.action) for n in as_text.notes] == [("tool_result", "as_text")]
    # One read so (tool_call_id left out, or null) goes back as it came.
    without_id = {"role": "tool", "agentName": "a", "content": "x", "mode": "tool"}
    for read in (without_id, {**without_id, "tool_call_id": None}):
        assert to_swarm_kit(from_swarm_kit([read])) == [read]


def test_the_result_of_a_call_the_policy_dropped_is_written_as_to_openai_leaves_it() -> None:
    # Left to swarm-kit, which sends no result whose call it has not (nor to_openai(validate=False)'s reader).
    messages = [
        AssistantMessage(ToolUseBlock("c", "f", None, "{not json")),
        ToolResultMessage(ToolResultBlock("c", "f", TextBlock("r"), state=ToolResultState.SUCCESS)),
    ]
    sent = to_swarm_kit(messages, on_unsupported="drop")
    assert [(m["role"], m.get("tool_call_id")) for m in sent] == [("assistant", None), ("tool", "c")]
    assert [(n.message_index, n.block_type) for n in sent.notes] == [(0, "tool_use")]


def test_texts_are_joined_into_the_content_string() -> None:
    sent = to_swarm_kit([AssistantMessage(TextBlock("a"), TextBlock("b"))])
    assert sent[0]["content"] == "a\nb"


# -- never silently lossy ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("block", "kind"),
    [
        (ThinkingBlock("hm"), "thinking"),
        (HintBlock("h", "short"), "hint"),
        (DataBlock(URLSource("https://e.com/a.png", "image/png")), "data"),
        (DataBlock(Base64Source("application/pdf", "JVBERi0=")), "data"),
    ],
)
def test_blocks_swarm_kit_cannot_hold_raise_unless_a_policy_is_chosen(block: Any, kind: str) -> None:
    messages = [AssistantMessage(TextBlock("a"), block)]
    with pytest.raises(UnsupportedContentError, match=r"messages\[0\]\.content\[1\]"):
        to_swarm_kit(messages)
    dropped = to_swarm_kit(messages, on_unsupported="drop")
    assert dropped[0]["content"] == "a" and "images" not in dropped[0]
    assert [(n.message_index, n.block_index, n.block_type) for n in dropped.notes] == [(0, 1, kind)]
    as_text = to_swarm_kit(messages, on_unsupported="text")
    assert as_text[0]["content"].startswith("a\n[")
    assert as_text.notes[0].action == "as_text"


# -- what swarm-kit shows its agent ------------------------------------------------------------


def test_agent_name_is_written_for_the_messages_that_have_no_name() -> None:
    # swarm-kit shows an agent its system messages, calls and results only under its own agentName:
    # written with "", those of a nameless history never reached the model.  A user's name is no
    # agent's: agentName is the agent whose history it is.
    history = [
        SystemMessage("You are a sales bot.", name="system"),
        UserMessage("Quote me for 3 licences", name="alice"),
        AssistantMessage(ToolUseBlock("t1", "lookup", {"q": 3})),
        ToolResultMessage(ToolResultBlock("t1", "lookup", TextBlock("found"), state=ToolResultState.SUCCESS), name="system"),
    ]
    assert [m["agentName"] for m in to_swarm_kit(history)] == ["", "", "", ""]
    sent = to_swarm_kit(history, agent_name="sales")
    assert [m["agentName"] for m in sent] == ["sales", "sales", "sales", "sales"]
    assert [m.name for m in from_swarm_kit(sent)] == [None, None, "sales", None]
    with pytest.raises(ArgumentTypeError, match=r"to_swarm_kit agent_name must be a str or None, got 5 \(int\)"):
        to_swarm_kit(history, agent_name=5)  # type: ignore[arg-type]


def test_agent_name_is_the_agent_whose_history_it_is_so_only_an_assistant_message_is_named_so() -> None:
    # swarm-kit writes its agent's name on every message it pushes to that agent's history, the user's too.
    payload = [
        {"role": "user", "agentName": "agent-a", "content": "hi", "mode": "user", "payload": None},
        {"role": "assistant", "agentName": "agent-a", "content": "hello", "mode": "tool"},
    ]
    user, assistant = from_swarm_kit(payload)
    assert user.name is None and assistant.name == "agent-a"
    assert to_openai([user, assistant]) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello", "name": "agent-a"},
    ]
    # The agentName read goes back as it came, whatever agent_name says; an assistant's edited name is written.
    assert to_swarm_kit([user, assistant], agent_name="agent-b") == payload
    assert [m["agentName"] for m in to_swarm_kit([user, assistant.__replace__(name="agent-c")])] == ["agent-a", "agent-c"]
    assert to_swarm_kit([UserMessage("hi", name="alice")], agent_name="agent-b")[0]["agentName"] == "agent-b"


def test_mode_is_user_only_for_a_user_message_as_swarm_kit_writes_it() -> None:
    # getUserHistory counts a user message of mode "user" as the user's words: not the other blocks of
    # a TOOL message.  swarm-kit writes "tool" on all the rest.
    messages = [
        SystemMessage("s"),
        UserMessage("u"),
        AssistantMessage("a"),
        ToolResultMessage([ToolResultBlock("c", "f", TextBlock("r"), state=ToolResultState.SUCCESS), TextBlock("also")]),
    ]
    assert [(m["role"], m["mode"]) for m in to_swarm_kit(messages)] == [
        ("system", "tool"), ("user", "user"), ("assistant", "tool"), ("tool", "tool"), ("user", "tool"),
    ]
    # What swarm-kit wrote otherwise goes back so: executeForce's text, an adapter's answer in mode "user".
    written = [
        {**_NEXT, "content": "Start the conversation"},
        {"role": "assistant", "agentName": "a", "content": "hi", "mode": "user"},
    ]
    read = from_swarm_kit(written)
    assert [m.metadata["swarm_kit"]["mode"] for m in read] == ["tool", "user"]
    assert to_swarm_kit(read) == written


def _swarm(role: str, content: str, **fields: Any) -> dict[str, Any]:
    return {"role": role, "agentName": "a", "content": content, "mode": "tool", **fields}


_BEFORE_RESET = [
    _swarm("user", "hi", mode="user"),
    _swarm("assistant", "", tool_calls=[{"id": "t1", "type": "function", "function": {"name": "nav", "arguments": {}}}]),
    _swarm("resque", "_resurrectModel call"),
    _swarm("tool", "ok", tool_call_id="t1"),
    _swarm("flush", ""),
]


def test_since_reset_reads_only_what_follows_the_last_resque_or_flush() -> None:
    # swarm-kit's agent forgets everything before such a marker: read in full, its text is a system message.
    payload = [*_BEFORE_RESET, _swarm("tool", "late", tool_call_id="t1"), _swarm("user", "again", mode="user")]
    assert len(from_swarm_kit(payload)) == 7
    result, user = from_swarm_kit(payload, since_reset=True)
    # Named after its call, which came before the marker: the whole list is read.
    assert isinstance(result, ToolResultMessage) and [b.name for b in result.get_content_blocks(ToolResultBlock)] == ["nav"]
    assert user.get_text_content() == "again"
    assert to_swarm_kit([result, user]) == payload[5:]
    assert from_swarm_kit(_BEFORE_RESET, since_reset=True) == []
    assert len(from_swarm_kit(payload[:2], since_reset=True)) == 2  # no marker: everything
    with pytest.raises(DecodeError) as info:
        from_swarm_kit([{**_BEFORE_RESET[0], "content": 1}, *_BEFORE_RESET], since_reset=True)
    assert info.value.path == "messages[0].content"
    # A flag, not anything truthy: "false" from a query string would have dropped the history.
    with pytest.raises(ArgumentTypeError, match=r"^from_swarm_kit since_reset must be a bool, got 'false' \(str\)"):
        from_swarm_kit(payload, since_reset="false")  # type: ignore[arg-type]


# -- bad input ---------------------------------------------------------------------------------

_OK = {"role": "user", "agentName": "a", "content": "x", "mode": "user"}


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        ({}, "messages"),
        ([_OK, {**_OK, "role": "bot"}], "messages[1].role"),
        ([{**_OK, "agentName": None}], "messages[0].agentName"),
        ([{**_OK, "content": ["x"]}], "messages[0].content"),
        ([{**_OK, "images": [b"x".decode(), 5]}], "messages[0].images[1]"),
        ([{**_OK, "role": "system", "images": ["iVBORw0KGgo="]}], "messages[0].images"),
        ([{**_OK, "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {}}}]}], "messages[0].tool_calls"),
        ([_OK, _OK, {**_OK, "role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": 3}}]}], "messages[2].tool_calls[0].function.arguments"),
        ([{**_OK, "role": "assistant", "tool_calls": [{"id": "c"}]}], "messages[0].tool_calls[0]"),
        ([{**_OK, "role": "tool", "tool_call_id": 7}], "messages[0].tool_call_id"),
        # What swarm-kit's types do not allow: an ExecutionMode other than "tool" or "user", a call
        # of another type than "function" (these were read, and written back as they came).
        ([{**_OK, "mode": 5}], "messages[0].mode"),
        ([_OK, {**_OK, "role": "tool", "tool_call_id": "c", "mode": None}], "messages[1].mode"),
        ([{**_OK, "mode": "foo"}], "messages[0].mode"),
        ([{**_OK, "role": "assistant", "tool_calls": [{"id": "c", "type": 5, "function": {"name": "f", "arguments": {}}}]}], "messages[0].tool_calls[0].type"),
    ],
)
def test_malformed_payloads_name_the_path(payload: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        from_swarm_kit(payload)
    assert info.value.path == path


@pytest.mark.parametrize("media_type", ["IMAGE/PNG", "image/png; name=x.png"])
def test_an_image_type_in_any_case_and_with_parameters_is_an_image(media_type: str) -> None:
    written = to_swarm_kit([UserMessage(DataBlock(Base64Source(media_type, "iVBORw0KGgo=")))])
    assert written[0]["images"] == ["iVBORw0KGgo="]
    [read] = from_swarm_kit([{**_OK, "images": [f"data:{media_type};base64,iVBORw0KGgo="]}])
    [image] = read.get_content_blocks(DataBlock)
    assert image.source == Base64Source(media_type, "iVBORw0KGgo=")


@pytest.mark.parametrize("image", [{"0": 137, "1": 80}, {}, b"\x89PNG"])
def test_an_image_that_is_no_string_says_to_write_it_as_base64(image: object) -> None:
    # JSON.stringify writes a Uint8Array image as an object of its bytes, a Blob as {}.
    with pytest.raises(DecodeError, match="write each image as its bytes in base64") as info:
        from_swarm_kit([{**_OK, "images": ["iVBORw0KGgo=", image]}])
    assert info.value.path == "messages[0].images[1]"


def test_a_long_role_is_shown_by_its_start_in_the_error() -> None:
    with pytest.raises(DecodeError) as info:
        from_swarm_kit([{**_OK, "role": "A" * 1_000_000}])
    assert f"{'A' * 48!r}…(1,000,000 characters)" in str(info.value) and len(str(info.value)) < 1000
