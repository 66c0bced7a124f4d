"""ReplyEmitter: a reply sent as events while it is produced, assembling into its own message."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import pytest
from event_strategies import replies
from hypothesis import given
from hypothesis import strategies as st
from strategies import chat_usages

from agentscope_py import (
    AgentEndEvent,
    AgentEvent,
    AgentResultEvent,
    AgentStartEvent,
    AllToolsDeniedEvent,
    ArgumentTypeError,
    ArgumentValueError,
    AssistantMessage,
    ChatUsage,
    ContentBlock,
    GenerateReason,
    ImageBlock,
    MessageAssembler,
    ModelCallEndEvent,
    Msg,
    ModelCallStartEvent,
    ReplyEmitter,
    RequestStopEvent,
    RequireExternalExecutionEvent,
    RequireUserConfirmEvent,
    StreamError,
    TextBlock,
    TextBlockDeltaEvent,
    TextBlockStartEvent,
    ThinkingBlock,
    ThinkingBlockEndEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolCallState,
    ToolResultBlock,
    ToolResultEndEvent,
    ToolResultStartEvent,
    ToolResultState,
    ToolResultTextDeltaEvent,
    ToolUseBlock,
    URLSource,
    UserMessage,
    assemble,
    events_from_message,
)
from agentscope_py._tool_arguments import parse_tool_arguments
from agentscope_py.interop import stop_reason, to_anthropic
from agentscope_py.sse import encode_events, parse_events


def _types(events: Sequence[AgentEvent]) -> list[str]:
    return [type(event).__name__ for event in events]


def _check_well_formed(events: Sequence[AgentEvent]) -> None:
    """Start, deltas, end for each block, a model call's blocks inside its start and end under its
    reply id, tool results outside them, one text or thinking block open at a time (tool calls may
    stream side by side, and tool results), and the reply framed by its start and end."""
    assert isinstance(events[0], AgentStartEvent) and isinstance(events[-1], AgentEndEvent)
    model_call: str | None = None
    open_blocks: list[tuple[str, str | None, str | None]] = []
    for event in events[1:-1]:
        name = type(event).__name__
        if isinstance(event, ModelCallStartEvent):
            assert model_call is None and not open_blocks
            model_call = event.reply_id
        elif isinstance(event, ModelCallEndEvent):
            assert event.reply_id == model_call and not open_blocks
            model_call = None
        for phase in ("Start", "Delta", "End"):
            if not name.endswith(phase + "Event") or name.startswith(("Agent", "ModelCall")):
                continue
            family = name.removesuffix(phase + "Event").removesuffix("Text").removesuffix("Data")
            key = (family, event.reply_id, getattr(event, "block_id", getattr(event, "tool_call_id", None)))  # type: ignore[attr-defined]
            if family == "ToolResult":  # in an acting phase, outside any model call
                assert model_call is None
            else:
                assert event.reply_id == model_call  # type: ignore[attr-defined]
            if phase == "Start":  # tool calls side by side, or tool results; nothing else
                assert key not in open_blocks
                assert all(block[0] == family in ("ToolCall", "ToolResult") for block in open_blocks)
                open_blocks.append(key)
            else:
                assert key in open_blocks
                if phase == "End":
                    open_blocks.remove(key)
    assert model_call is None and not open_blocks


def _without_time(message: AssistantMessage) -> dict[str, Any]:
    document = message.to_dict()
    del document["timestamp"]
    return document


# -- the shape of the stream --------------------------------------------------------------


def test_deltas_go_out_as_they_come_and_a_block_closes_when_the_next_begins() -> None:
    reply = ReplyEmitter("Friday")
    assert _types(reply.text("Hel")) == ["AgentStartEvent", "ModelCallStartEvent", "TextBlockStartEvent", "TextBlockDeltaEvent"]
    assert _types(reply.text("lo")) == ["TextBlockDeltaEvent"]
    call = reply.tool_call("call_1", "search", '{"q": ')
    assert _types(call) == ["TextBlockEndEvent", "ToolCallStartEvent", "ToolCallDeltaEvent"]
    assert isinstance(call[1], ToolCallStartEvent) and (call[1].tool_call_id, call[1].tool_call_name) == ("call_1", "search")
    more = reply.tool_call("call_1", arguments='"cats"}')  # the name is needed only when the call opens
    assert isinstance(more[0], ToolCallDeltaEvent) and more[0].tool_call_name == "search"
    assert _types(reply.end_model_call(ChatUsage(12, 4))) == ["ToolCallEndEvent", "ModelCallEndEvent"]
    assert _types(reply.finish()) == ["AgentEndEvent"]
    assert reply.message.content == (
        TextBlock("Hello"),
        ToolUseBlock("call_1", "search", {"q": "cats"}, '{"q": "cats"}'),
    )
    assert reply.message.usage == ChatUsage(12, 4)
    assert reply.message.name == "Friday" and reply.message.id == reply.reply_id


def test_every_event_of_a_model_call_carries_its_reply_id_and_each_model_call_has_its_own() -> None:
    reply = ReplyEmitter()
    first = reply.text("Looking it up.")
    reply.block(ToolResultBlock("c1", "search", [TextBlock("found")]))
    second = reply.text("Found it.")
    starts = [event for event in first + second if isinstance(event, ModelCallStartEvent)]
    assert len(starts) == 2 and starts[0].reply_id != starts[1].reply_id
    for event in second:
        if isinstance(event, (TextBlockStartEvent, TextBlockDeltaEvent)):
            assert event.reply_id == starts[1].reply_id
            assert event.block_id == "text"  # every model call's text is "text" again, as in Java


def test_a_second_text_block_in_one_model_call_gets_an_id_of_its_own() -> None:
    reply = ReplyEmitter()
    reply.text("Before the call.")
    reply.tool_call("c1", "search")
    after = reply.text("After it.")
    assert [event.block_id for event in after if isinstance(event, TextBlockStartEvent)] == ["text-2"]
    reply.finish()
    assert reply.message.get_text_content() == "Before the call.\nAfter it."


def test_a_text_may_begin_a_block_of_its_own_right_after_a_text() -> None:
    reply = ReplyEmitter()
    reply.text("One.")
    apart = reply.text("Two.", new_block=True)  # as Anthropic splits a cited answer into text blocks
    assert _types(apart) == ["TextBlockEndEvent", "TextBlockStartEvent", "TextBlockDeltaEvent"]
    assert [event.block_id for event in apart if isinstance(event, TextBlockStartEvent)] == ["text-2"]
    reply.thinking("Hm.")
    reply.thinking("Yes.", new_block=True, metadata={"anthropic": {"signature": "sig"}})
    reply.text("Three.", new_block=True)  # after a block of another kind: a new block anyway
    reply.finish()
    assert reply.message.content == (
        TextBlock("One."),
        TextBlock("Two."),
        ThinkingBlock("Hm."),
        ThinkingBlock("Yes.", {"anthropic": {"signature": "sig"}}),
        TextBlock("Three."),
    )
    assert assemble(reply.events, strict=True) == [reply.message]


def test_the_start_can_be_sent_first_and_only_once() -> None:
    reply = ReplyEmitter("Friday", id="m-1", metadata={"trace": "t-9"})
    started = reply.start()
    assert _types(started) == ["AgentStartEvent"]
    assert isinstance(started[0], AgentStartEvent) and (started[0].reply_id, started[0].name) == ("m-1", "Friday")
    assert reply.start() == []
    assert _types(reply.text("Hi")) == ["ModelCallStartEvent", "TextBlockStartEvent", "TextBlockDeltaEvent"]
    reply.finish()
    assert reply.message.id == "m-1" and reply.message.metadata == {"trace": "t-9"}


def test_the_reason_is_the_one_finish_states() -> None:
    copied = AssistantMessage("Calling a tool.", generate_reason=GenerateReason.TOOL_CALLS).metadata
    reply = ReplyEmitter(metadata={**copied, "trace": "t-1"})  # a previous reply's metadata, reason and all
    reply.text("Done.")
    reply.finish()
    assert reply.message.get_generate_reason() is GenerateReason.MODEL_STOP
    assert reply.message.metadata == {"trace": "t-1"}


def test_metadata_known_only_at_the_end_comes_with_finish() -> None:
    reply = ReplyEmitter(metadata={"trace": "t-1"})
    reply.text("The answer was cut sh")
    cut = {"openai": {"response": {"choice": {"finish_reason": "length"}}}}
    events = reply.finish(metadata={**cut, Msg.METADATA_GENERATE_REASON: "TOOL_CALLS"}, with_result=True)
    assert reply.message.metadata == {"trace": "t-1", **cut}  # the reason is finish()'s: MODEL_STOP
    assert stop_reason(reply.message) == "length"  # a client tells a truncated answer from a finished one
    result = events[-2]
    assert isinstance(result, AgentResultEvent) and result.result == reply.message
    assert assemble([AgentEvent.from_json(event.to_json()) for event in reply.events], strict=True) == [reply.message]


def test_an_empty_delta_sends_nothing_and_opens_no_block() -> None:
    reply = ReplyEmitter()
    assert _types(reply.text("")) == ["AgentStartEvent"]  # the start, which any first call sends
    assert reply.thinking("") == []
    reply.tool_call("c1", "get_time")  # a call may have no arguments at all
    reply.finish()
    assert reply.message.content == (ToolUseBlock("c1", "get_time"),)


def test_a_thinking_blocks_metadata_may_come_with_its_last_delta() -> None:
    reply = ReplyEmitter()
    reply.thinking("The user greets me.")
    signed = {"anthropic": {"signature": "sig-1"}}
    reply.thinking("", metadata=signed)  # Anthropic sends the signature last
    events = reply.text("Hello!")
    end = events[0]
    assert isinstance(end, ThinkingBlockEndEvent) and end.metadata == {"agentscope_block": {"metadata": signed}}
    reply.finish()
    assert reply.message.content == (ThinkingBlock("The user greets me.", signed), TextBlock("Hello!"))
    # signed as the Anthropic converter reads and writes it: the next request carries the signature
    turn = to_anthropic([UserMessage("Hi"), reply.message])["messages"][1]
    assert turn["content"][0] == {"type": "thinking", "thinking": "The user greets me.", "signature": "sig-1"}


def test_whole_blocks_go_in_deltas_a_client_reads_whole() -> None:
    reply = ReplyEmitter()
    events = reply.block(TextBlock("x" * 1000))
    assert [event.delta for event in events if isinstance(event, TextBlockDeltaEvent)] == ["x" * 1000]
    long = reply.block(TextBlock("y" * (2**20 + 5)))  # but no delta larger than a client reads whole
    assert [len(event.delta or "") for event in long if isinstance(event, TextBlockDeltaEvent)] == [2**20, 5]
    image = ImageBlock(URLSource("https://example.com/cat.png"))
    reply.block(image)
    reply.finish()
    assert reply.message.content == (TextBlock("x" * 1000), TextBlock("y" * (2**20 + 5)), image)


def test_usage_is_the_sum_of_the_model_calls() -> None:
    reply = ReplyEmitter()
    reply.text("One.")
    assert isinstance(reply.end_model_call(ChatUsage(10, 2))[-1], ModelCallEndEvent)
    reply.text("Two.")
    reply.end_model_call(ChatUsage(5, 1, cached_tokens=3))
    assert reply.end_model_call() == []  # nothing under way, nothing to say
    usage_only = reply.end_model_call(ChatUsage(1, 1))  # no block, but a cost: an empty model call carries it
    assert _types(usage_only) == ["ModelCallStartEvent", "ModelCallEndEvent"]
    reply.finish()
    assert reply.message.usage == ChatUsage(16, 4, cached_tokens=3)


# -- generate reasons -----------------------------------------------------------------------


def test_the_calls_without_a_result_are_the_ones_asking_for_permission() -> None:
    reply = ReplyEmitter()
    reply.tool_call("c1", "read_file", '{"path": "a.txt"}')
    reply.tool_call("c2", "delete_file", '{"path": "b.txt"}')
    reply.block(ToolResultBlock("c1", "read_file", [TextBlock("contents")], state=ToolResultState.SUCCESS))
    events = reply.finish(GenerateReason.PERMISSION_ASKING)
    assert _types(events) == ["RequireUserConfirmEvent", "RequestStopEvent", "AgentEndEvent"]
    asking = events[0]
    assert isinstance(asking, RequireUserConfirmEvent) and [call.id for call in asking.tool_calls] == ["c2"]
    message = reply.message
    assert message.get_generate_reason() is GenerateReason.PERMISSION_ASKING
    assert [call.state for call in message.get_content_blocks(ToolUseBlock)] == [ToolCallState.PENDING, ToolCallState.ASKING]


def test_a_call_id_used_again_in_the_next_answer_is_told_apart_by_its_result() -> None:
    # Providers number their calls anew in each answer: the second call_0 waits, the first was answered.
    reply = ReplyEmitter()
    reply.tool_call("call_0", "get_weather", "{}")
    reply.block(ToolResultBlock("call_0", "get_weather", [TextBlock("sunny")], state=ToolResultState.SUCCESS))
    reply.tool_call("call_0", "delete_file", '{"path": "b.txt"}')
    (asking,) = [event for event in reply.finish(GenerateReason.PERMISSION_ASKING) if isinstance(event, RequireUserConfirmEvent)]
    assert [(call.id, call.name) for call in asking.tool_calls] == [("call_0", "delete_file")]
    calls = reply.message.get_content_blocks(ToolUseBlock)
    assert [(call.name, call.state) for call in calls] == [("get_weather", ToolCallState.PENDING), ("delete_file", ToolCallState.ASKING)]
    assert assemble(reply.events) == [reply.message]


@pytest.mark.parametrize(
    ("reason", "with_result"),
    [(GenerateReason.MODEL_STOP, True), (GenerateReason.PERMISSION_ASKING, False), (GenerateReason.PERMISSION_ASKING, True)],
)
@pytest.mark.parametrize("tool", ["delete_all", "get_time"])
def test_a_call_id_used_again_with_the_same_input_keeps_each_calls_state(reason: GenerateReason, with_result: bool, tool: str) -> None:
    # The answered call was streamed (its state not sent), the waiting one given whole, ASKING: the
    # listing of the waiting call named the answered one, of another tool or the same, which came
    # out ASKING too.
    reply = ReplyEmitter("A")
    reply.tool_call("call_0", "get_time", "{}")
    reply.end_model_call()
    reply.block(ToolResultBlock("call_0", "get_time", [TextBlock("12:00")], state=ToolResultState.SUCCESS))
    reply.block(ToolUseBlock("call_0", tool, {}, state=ToolCallState.ASKING))
    reply.finish(reason, with_result=with_result)
    calls = reply.message.get_content_blocks(ToolUseBlock)
    assert [(call.name, call.state) for call in calls] == [("get_time", ToolCallState.PENDING), (tool, ToolCallState.ASKING)]
    assert assemble(reply.events) == [reply.message]


class _Tag(str):
    pass


def test_the_events_hold_plain_strings_where_str_subclasses_were_given() -> None:
    # The emitter builds its events without the classes' checks: what it is given is made plain first.
    reply = ReplyEmitter(_Tag("bot"), id=_Tag("R"), source=_Tag("main/sub"))
    reply.text(_Tag("Hi"))
    reply.tool_call(_Tag("c1"), _Tag("rm"), _Tag("{}"))
    reply.tool_result(_Tag("c1"), _Tag("ok"), name=_Tag("rm"))
    reply.end_tool_result(_Tag("c1"))
    reply.finish()
    events = [*reply.events, *events_from_message(reply.message, source=_Tag("main/sub"))]
    given = [(type(event).__name__, field.name) for event in events for field in attrs.fields(type(event))
             if isinstance(getattr(event, field.name), _Tag)]
    assert given == []


@pytest.mark.parametrize("later_input", [{"p": 2}, {"p": 1}], ids=["another input", "the same input"])
def test_a_waiting_call_whose_id_a_later_call_has_too_ends_asking(later_input: dict[str, int]) -> None:
    # The later call_0 is finished: the listed call is the earlier one, told apart by its input, or, of
    # equal inputs, by the state the later one's stream gave.
    reply = ReplyEmitter()
    reply.tool_call("call_0", "rm", '{"p": 1}')
    reply.end_model_call()
    reply.block(ToolUseBlock("call_0", "rm", later_input, state=ToolCallState.FINISHED))
    reply.finish(GenerateReason.PERMISSION_ASKING)
    calls = reply.message.get_content_blocks(ToolUseBlock)
    assert [(dict(call.input), call.state) for call in calls] == [({"p": 1}, ToolCallState.ASKING), (later_input, ToolCallState.FINISHED)]
    assert assemble(reply.events) == [reply.message]


def test_a_tool_results_own_entry_shaped_as_the_carried_state_is_its_metadata() -> None:
    reply = ReplyEmitter()
    reply.tool_call("c1", "lookup", "{}")
    reply.tool_result("c1", "ok")
    reply.end_tool_result("c1", ToolResultState.SUCCESS, metadata={"agentscope_block": {"state": "denied"}})
    reply.finish()
    [result] = reply.message.get_content_blocks(ToolResultBlock)
    assert result.state is ToolResultState.SUCCESS and result.metadata == {"agentscope_block": {"state": "denied"}}
    assert assemble(reply.events) == [reply.message]


@pytest.mark.parametrize(
    ("reason", "result", "listed"),
    [
        (GenerateReason.TOOL_SUSPENDED, ToolResultBlock.suspended(ToolUseBlock("call_0", "run")), "tool_calls"),
        (GenerateReason.ALL_TOOLS_DENIED, ToolResultBlock("call_0", "run", state=ToolResultState.DENIED), "denied_tool_calls"),
    ],
)
def test_only_the_call_a_waiting_result_answers_is_listed(reason: GenerateReason, result: ToolResultBlock, listed: str) -> None:
    reply = ReplyEmitter()
    reply.tool_call("call_0", "lookup", "{}")
    reply.block(ToolResultBlock("call_0", "lookup", [TextBlock("done")], state=ToolResultState.SUCCESS))
    reply.tool_call("call_0", "run", "{}")
    reply.block(result)
    event = reply.finish(reason)[0]
    assert [(call.id, call.name) for call in getattr(event, listed)] == [("call_0", "run")]


def test_a_whole_pending_call_waits_for_the_user_as_a_streamed_one_does() -> None:
    reply = ReplyEmitter()
    reply.block(ToolUseBlock("call_2", "delete_file", {"path": "b.txt"}))
    reply.block(ToolUseBlock("call_3", "read_file", {"path": "a.txt"}, state=ToolCallState.ALLOWED))
    (asking,) = [event for event in reply.finish(GenerateReason.PERMISSION_ASKING) if isinstance(event, RequireUserConfirmEvent)]
    states = [call.state for call in reply.message.get_content_blocks(ToolUseBlock)]
    assert states == [ToolCallState.ASKING, ToolCallState.ALLOWED]  # a state given stays
    assert assemble(reply.events) == [reply.message]
    # The user is asked about the call that waits only, as Java's permission gate asks, and as the
    # message's own stream lists it: the allowed call is not run yet, and not in question.
    assert [call.id for call in asking.tool_calls] == ["call_2"]
    (again,) = [event for event in events_from_message(reply.message) if isinstance(event, RequireUserConfirmEvent)]
    assert [call.id for call in again.tool_calls] == ["call_2"]


def test_a_client_in_another_time_zone_builds_the_same_message(monkeypatch: pytest.MonkeyPatch) -> None:
    # POSIX zone strings: no time zone database needed.
    monkeypatch.setenv("TZ", "UTC0")
    time.tzset()
    try:
        reply = ReplyEmitter("Friday")
        reply.text("Hello.")
        reply.finish()
        monkeypatch.setenv("TZ", "JST-9")  # the client: nine hours east
        time.tzset()
        assert assemble(parse_events(encode_events(reply.events))) == [reply.message]
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_usage_the_sum_cannot_hold_is_refused_and_the_reply_goes_on() -> None:
    reply = ReplyEmitter()
    reply.text("One.")
    reply.end_model_call(ChatUsage(2_000_000_000, 10))
    reply.text("Two.")
    with pytest.raises(ArgumentValueError, match=r"^ReplyEmitter\.end_model_call: the reply's usage so far plus this one"):
        reply.end_model_call(ChatUsage(2_000_000_000, 10))
    reply.end_model_call(ChatUsage(1, 1))
    reply.finish()
    assert reply.message.usage == ChatUsage(2_000_000_001, 11)
    assert assemble(reply.events) == [reply.message]


def test_a_suspended_result_asks_for_external_execution_under_its_acting_phase() -> None:
    reply = ReplyEmitter()
    reply.tool_call("c1", "run_locally", "{}")
    acting = reply.block(ToolResultBlock.suspended(ToolUseBlock("c1", "run_locally"), "runs on the client"))
    events = reply.finish(GenerateReason.TOOL_SUSPENDED)
    suspended = events[0]
    assert isinstance(suspended, RequireExternalExecutionEvent)
    assert suspended.reply_id == acting[-1].reply_id  # type: ignore[attr-defined]
    assert [call.id for call in suspended.tool_calls] == ["c1"]
    assert reply.message.get_generate_reason() is GenerateReason.TOOL_SUSPENDED


def test_a_live_reply_records_the_id_it_asks_under_as_java_does() -> None:
    reply = ReplyEmitter()
    reply.tool_call("c1", "delete_file", "{}")
    (asking,) = [event for event in reply.finish(GenerateReason.PERMISSION_ASKING) if isinstance(event, RequireUserConfirmEvent)]
    assert asking.reply_id is not None and len(asking.reply_id) == 32  # made, as Java makes one per acting phase
    assert reply.message.metadata[Msg.METADATA_CONFIRM_REQUEST_REPLY_ID] == asking.reply_id
    assert assemble(reply.events) == [reply.message]
    # The message's stream, sent again (to a client that resumes from it), asks under the same id.
    (again,) = [event for event in events_from_message(reply.message) if isinstance(event, RequireUserConfirmEvent)]
    assert again.reply_id == asking.reply_id
    # An id copied along with a previous message's metadata is an answered request's: the reply asks
    # under its own (for external execution, its acting phase's), and every client reads that one.
    stale = {Msg.METADATA_EXTERNAL_EXECUTION_REQUEST_REPLY_ID: "A-9", Msg.METADATA_CONFIRM_REQUEST_REPLY_ID: "A-8"}
    later = ReplyEmitter(metadata=stale)
    later.tool_call("c1", "run_locally", "{}")
    acting = later.block(ToolResultBlock.suspended(ToolUseBlock("c1", "run_locally")))
    events = later.finish(GenerateReason.TOOL_SUSPENDED, metadata={Msg.METADATA_EXTERNAL_EXECUTION_REQUEST_REPLY_ID: ""}, with_result=True)
    (suspended,) = [event for event in events if isinstance(event, RequireExternalExecutionEvent)]
    assert suspended.reply_id == acting[-1].reply_id  # type: ignore[attr-defined]
    (result,) = [event.result for event in events if isinstance(event, AgentResultEvent)]
    for message in (later.message, result, *assemble(later.events)):
        assert message is not None and message.metadata[Msg.METADATA_EXTERNAL_EXECUTION_REQUEST_REPLY_ID] == suspended.reply_id
        assert Msg.METADATA_CONFIRM_REQUEST_REPLY_ID not in message.metadata


def test_denied_results_end_the_reply_with_all_tools_denied() -> None:
    reply = ReplyEmitter()
    reply.tool_call("c1", "rm", "{}")
    reply.block(ToolResultBlock("c1", "rm", [TextBlock("denied")], state=ToolResultState.DENIED))
    denied = reply.finish(GenerateReason.ALL_TOOLS_DENIED)[0]
    assert isinstance(denied, AllToolsDeniedEvent) and [call.id for call in denied.denied_tool_calls] == ["c1"]
    assert reply.message.get_generate_reason() is GenerateReason.ALL_TOOLS_DENIED


@pytest.mark.parametrize("reason", [GenerateReason.MAX_ITERATIONS, GenerateReason.INTERRUPTED, GenerateReason.TOOL_CALLS])
def test_other_reasons_go_in_a_request_stop_event(reason: GenerateReason) -> None:
    reply = ReplyEmitter()
    reply.text("Stopping.")
    stop = reply.finish(reason)[-2]
    assert isinstance(stop, RequestStopEvent) and stop.generate_reason is reason
    assert reply.message.get_generate_reason() is reason


def test_a_java_client_gets_the_message_in_the_result_event() -> None:
    reply = ReplyEmitter("Friday")
    reply.tool_call("c1", "delete_file", '{"path": "b.txt"}')
    events = reply.finish(GenerateReason.PERMISSION_ASKING, with_result=True)
    result = events[-2]
    assert isinstance(result, AgentResultEvent) and isinstance(events[-1], AgentEndEvent)
    assert result.result == reply.message  # with the call that waits ASKING, as the events made it
    assert assemble(reply.events) == [reply.message]


def test_a_delta_given_live_past_a_mebicharacter_goes_in_pieces_a_client_reads() -> None:
    # One event of tens of megabytes was one SSE message past the 64 MiB a client reads: the client
    # refused the stream, and the message it built was not the emitter's.
    big = "\x01" * (2 * 2**20 + 5)  # each character six in JSON
    reply = ReplyEmitter()
    sent = [*reply.text(big), *reply.tool_call("c1", "f", '{"x": "' + big + '"}'), *reply.tool_result("c1", big)]
    deltas = [event for event in sent if isinstance(event, (TextBlockDeltaEvent, ToolCallDeltaEvent, ToolResultTextDeltaEvent))]
    assert [type(event).__name__ for event in deltas] == ["TextBlockDeltaEvent"] * 3 + ["ToolCallDeltaEvent"] * 3 + ["ToolResultTextDeltaEvent"] * 3
    assert max(len(event.delta or "") for event in deltas) == 2**20
    reply.finish()
    message = reply.message
    assert message.get_text_content() == big
    assert assemble(parse_events(encode_events(reply.events))) == [message]


@pytest.mark.parametrize("with_result", [False, True])
def test_the_result_event_names_calls_of_one_id_in_the_order_they_were_made(with_result: bool) -> None:
    # Providers number their calls anew in each answer: the result lists both call_0s, the one that ran
    # first. Named latest first, it made the call that ran ASKING, and the one waiting PENDING.
    reply = ReplyEmitter("Friday")
    reply.tool_call("call_0", "get_time", "{}")
    reply.end_model_call()
    reply.tool_result("call_0", "12:00")
    reply.end_tool_result("call_0")
    reply.tool_call("call_0", "get_time", "{}")
    reply.finish(GenerateReason.PERMISSION_ASKING, with_result=with_result)
    states = [call.state for call in reply.message.get_content_blocks(ToolUseBlock)]
    assert states == [ToolCallState.PENDING, ToolCallState.ASKING]
    assert assemble(reply.events) == [reply.message]


# -- a tool's output, as the tool runs ------------------------------------------------------


def test_a_tools_output_streams_while_it_runs_and_ends_with_its_state() -> None:
    reply = ReplyEmitter()
    reply.tool_call("c1", "search", '{"q": "cats"}')
    opened = reply.tool_result("c1")  # the tool starts: nothing to show yet
    assert _types(opened) == ["ToolCallEndEvent", "ModelCallEndEvent", "ToolResultStartEvent"]
    start = opened[-1]
    assert isinstance(start, ToolResultStartEvent) and (start.tool_call_id, start.tool_call_name) == ("c1", "search")
    assert _types(reply.tool_result("c1", "3 results")) == ["ToolResultTextDeltaEvent"]
    running = reply.snapshot()
    assert running is not None and running.content[-1] == ToolResultBlock("c1", "search", [TextBlock("3 results")])
    assert running.content[-1].state is ToolResultState.RUNNING  # a live UI shows the tool at work
    reply.tool_result("c1", ", the first: ")
    picture = ImageBlock(URLSource("https://example.com/cat.png"))
    assert _types(reply.tool_result("c1", picture)) == ["ToolResultDataDeltaEvent"]
    ended = reply.end_tool_result("c1")
    assert isinstance(ended[0], ToolResultEndEvent) and ended[0].state is ToolResultState.SUCCESS
    assert reply.text("Here is a cat.")[0].reply_id != start.reply_id  # type: ignore[attr-defined]
    reply.finish()
    result = reply.message.get_content_blocks(ToolResultBlock)[0]
    assert result == ToolResultBlock(
        "c1", "search", [TextBlock("3 results, the first: "), picture], state=ToolResultState.SUCCESS
    )
    _check_well_formed(reply.events)
    assert assemble(reply.events, strict=True) == [reply.message]


def test_parallel_tools_stream_their_results_side_by_side() -> None:
    reply = ReplyEmitter()
    reply.tool_call("c1", "search", "{}")
    reply.tool_call("c2", "fetch", "{}")
    first = reply.tool_result("c1", "searching")
    second = reply.tool_result("c2", "fetching")
    assert _types(second) == ["ToolResultStartEvent", "ToolResultTextDeltaEvent"]  # c1 stays open beside it
    assert first[-1].reply_id == second[0].reply_id  # type: ignore[attr-defined]  # one acting phase
    reply.tool_result("c1", "...")
    reply.block(ToolResultBlock("c3", "clock", [TextBlock("12:00")], state=ToolResultState.SUCCESS))  # beside them
    reply.end_tool_result("c2", ToolResultState.ERROR)
    reply.end_tool_result("c1")
    reply.finish()
    results = reply.message.get_content_blocks(ToolResultBlock)
    assert [(result.id, result.output, result.state) for result in results] == [
        ("c1", (TextBlock("searching..."),), ToolResultState.SUCCESS),
        ("c2", (TextBlock("fetching"),), ToolResultState.ERROR),
        ("c3", (TextBlock("12:00"),), ToolResultState.SUCCESS),
    ]
    assert assemble(reply.events, strict=True) == [reply.message]


def test_a_result_open_when_its_acting_phase_ends_stays_running() -> None:
    reply = ReplyEmitter()
    reply.tool_call("c1", "slow_job", "{}")
    reply.tool_result("c1", "started")
    moved_on = reply.text("The job runs in the background.")
    assert _types(moved_on)[:2] == ["ToolResultEndEvent", "ModelCallStartEvent"]
    # RUNNING, as Java ends a result that waits: a Java client takes an end without a state for a finished tool.
    assert isinstance(moved_on[0], ToolResultEndEvent) and moved_on[0].state is ToolResultState.RUNNING
    reply.tool_result("c2", "half", name="other_job")
    reply.finish()
    assert [result.state for result in reply.message.get_content_blocks(ToolResultBlock)] == [
        ToolResultState.RUNNING,
        ToolResultState.RUNNING,
    ]
    assert assemble(reply.events, strict=True) == [reply.message]


def test_a_result_is_named_as_its_call_unless_a_name_is_given() -> None:
    reply = ReplyEmitter()
    reply.tool_call("c1", "search", "{}")
    reply.tool_result("c1", "a")
    reply.tool_result("c9", "b")  # no call of this reply: no name
    reply.tool_result("c7", "c", name="remote")
    reply.tool_result("c7", "d", name="remote")  # the name again, the same
    reply.tool_result("c7", "e", name="")  # or as "", as for a call: no name, not another one
    with pytest.raises(ArgumentValueError, match="'c7' is named 'remote', not 'local'"):
        reply.tool_result("c7", "f", name="local")
    reply.tool_result("c1", "", name="")  # opens
    reply.finish()
    assert [(result.id, result.name) for result in reply.message.get_content_blocks(ToolResultBlock)] == [
        ("c1", "search"),
        ("c9", None),
        ("c7", "remote"),
    ]


def test_a_text_block_of_output_is_text_as_java_streams_it() -> None:
    reply = ReplyEmitter()
    reply.tool_call("c1", "search", "{}")
    reply.tool_result("c1", "Found: ")
    assert _types(reply.tool_result("c1", TextBlock("a cat"))) == ["ToolResultTextDeltaEvent"]
    reply.end_tool_result("c1")
    reply.finish()
    assert reply.message.get_content_blocks(ToolResultBlock)[0].output == (TextBlock("Found: a cat"),)


def test_a_streamed_result_can_leave_its_call_to_external_execution() -> None:
    reply = ReplyEmitter()
    reply.tool_call("c1", "run_locally", "{}")
    reply.tool_result("c1", "[Awaiting external execution]")
    suspended = {ToolResultBlock.METADATA_SUSPENDED: True}
    reply.end_tool_result("c1", ToolResultState.RUNNING, metadata=suspended)
    asked = reply.finish(GenerateReason.TOOL_SUSPENDED)[0]
    assert isinstance(asked, RequireExternalExecutionEvent) and [call.id for call in asked.tool_calls] == ["c1"]
    result = reply.message.get_content_blocks(ToolResultBlock)[0]
    assert result.is_suspended and result.state is ToolResultState.RUNNING
    assert reply.message.get_generate_reason() is GenerateReason.TOOL_SUSPENDED


def test_a_result_takes_no_output_once_it_has_ended() -> None:
    reply = ReplyEmitter()
    with pytest.raises(ArgumentValueError, match="no tool result 'c1' is open: tool_result"):
        reply.end_tool_result("c1")
    reply.tool_result("c1", "done", name="job")
    reply.end_tool_result("c1")
    with pytest.raises(ArgumentValueError, match=r"no tool result 'c1' is open \(it ended already\)"):
        reply.end_tool_result("c1")
    with pytest.raises(ArgumentValueError, match="'c1' has a result in this acting phase already"):
        reply.tool_result("c1", "more")
    reply.tool_result("c2", "streaming", name="job")
    with pytest.raises(ArgumentValueError, match="'c2' is being streamed: send the rest"):
        reply.block(ToolResultBlock("c2", "job", [TextBlock("whole")]))
    with pytest.raises(ArgumentValueError, match=r"'c1' has a result .* which ends the results being streamed \('c2'\)"):
        reply.block(ToolResultBlock("c1", "job", [TextBlock("again, whole")]))
    with pytest.raises(ArgumentValueError, match="'c2' are being streamed: the model call has ended"):
        reply.end_model_call(ChatUsage(5, 5))  # the usage comes before the tools start
    reply.text("Next model call.")
    with pytest.raises(ArgumentValueError, match="'c2' was left RUNNING when a block of the model ended"):
        reply.tool_result("c2", "late output")
    with pytest.raises(ArgumentValueError, match=r"no tool result 'c2' is open \(it was left RUNNING"):
        reply.end_tool_result("c2")
    reply.tool_result("c1", "again")  # in the next acting phase: a result of its own
    reply.tool_call("c2", "job", "{}")  # a new call of that id (some providers number calls per answer)
    reply.tool_result("c2", "its own result")
    reply.finish()
    assert [result.output for result in reply.message.get_content_blocks(ToolResultBlock)] == [
        (TextBlock("done"),),
        (TextBlock("streaming"),),
        (TextBlock("again"),),
        (TextBlock("its own result"),),
    ]


def test_a_call_cannot_go_on_once_its_model_call_has_ended() -> None:
    reply = ReplyEmitter()
    reply.tool_call("c1", "search", '{"q": ')
    reply.tool_result("c1")  # the tool starts: the model call, and the call with it, are over
    with pytest.raises(ArgumentValueError, match="'c1' was closed when its model call ended"):
        reply.tool_call("c1", arguments='"cats"}')
    reply.finish()
    assert len(reply.message.get_content_blocks(ToolUseBlock)) == 1


# -- what clients make of it -----------------------------------------------------------------


def test_a_client_snapshot_is_the_emitters_snapshot() -> None:
    reply = ReplyEmitter()
    client = MessageAssembler(strict=True)
    assert reply.snapshot() is None
    for delta in ["It ", "is ", "sunny."]:
        for event in reply.text(delta):
            client.feed(event)
        assert client.snapshot() == reply.snapshot()
    done: list[AssistantMessage] = []
    for event in reply.finish():
        done += client.feed(event)
    assert done == [reply.message] and reply.snapshot() == reply.message


def test_the_events_kept_are_those_returned_and_resume_a_client() -> None:
    reply = ReplyEmitter()
    sent: list[AgentEvent] = []
    for word in "a reply streamed word by word".split():
        sent += reply.text(word + " ")
    sent += reply.finish()
    assert reply.events == tuple(sent)
    text = "".join(encode_events(reply.events))
    assert assemble(parse_events(text)) == [reply.message]
    resumed = "".join(encode_events(reply.events, last_event_id=sent[3].id))
    assert assemble([*sent[:4], *parse_events(resumed)], strict=True) == [reply.message]


def test_a_sub_agents_reply_is_tagged_with_its_source() -> None:
    reply = ReplyEmitter("researcher", source="main/researcher")
    events = reply.text("Found three papers.") + reply.finish()
    assert {event.source for event in events} == {"main/researcher"}
    assert assemble(events, strict=True) == [reply.message]  # a reply of its own
    assert assemble([event for event in events if event.source is None]) == []  # the top-level agent's: none
    client = MessageAssembler()
    for event in events[:-1]:
        client.feed(event)
    assert client.snapshot("main/researcher") == reply.snapshot()


# -- misuse ----------------------------------------------------------------------------------


def test_a_finished_reply_takes_nothing_more() -> None:
    reply = ReplyEmitter()
    reply.finish()
    adding: list[Callable[[], object]] = [lambda: reply.text("late"), reply.start, reply.finish, lambda: reply.block(TextBlock("late"))]
    for add in adding:
        with pytest.raises(StreamError, match="finished; start a ReplyEmitter for the next one"):
            add()
    assert reply.message.content == ()


def test_the_message_waits_for_finish() -> None:
    reply = ReplyEmitter()
    reply.text("Half")
    with pytest.raises(StreamError, match=r"not finished: call finish\(\) first"):
        reply.message  # noqa: B018
    finished = [reply.finished]
    assert repr(reply) == f"<ReplyEmitter None reply_id={reply.reply_id!r}: 4 events sent>"
    reply.finish()
    finished.append(reply.finished)
    assert finished == [False, True] and repr(reply).endswith(": finished>")


def test_a_calls_metadata_goes_with_its_end() -> None:
    reply = ReplyEmitter()
    reply.tool_call("c1", "get", '{"a": ', metadata={"anthropic": {"caller": {"type": "direct"}}})
    caller = {"anthropic": {"caller": {"type": "code_execution", "tool_id": "srv_1"}}}
    reply.tool_call("c1", arguments="1}", metadata=caller)  # the last given wins
    end = reply.end_model_call()[0]
    assert isinstance(end, ToolCallEndEvent) and end.metadata == {"agentscope_block": {"metadata": caller}}
    reply.finish()
    assert reply.message.content == (ToolUseBlock("c1", "get", {"a": 1}, '{"a": 1}', metadata=caller),)
    assert assemble([AgentEvent.from_json(event.to_json()) for event in reply.events], strict=True) == [reply.message]


def test_parallel_tool_calls_may_interleave_their_fragments() -> None:
    reply = ReplyEmitter()
    reply.text("Two lookups.")
    reply.tool_call("c1", "search", '{"q": ')
    second = reply.tool_call("c2", "get_time", '{"tz": ')
    assert _types(second) == ["ToolCallStartEvent", "ToolCallDeltaEvent"]  # c1 stays open beside it
    reply.tool_call("c1", arguments='"cats"}')
    reply.tool_call("c2", arguments='"UTC"}')
    ends = reply.end_model_call()
    assert _types(ends) == ["ToolCallEndEvent", "ToolCallEndEvent", "ModelCallEndEvent"]
    assert [event.tool_call_id for event in ends[:2]] == ["c1", "c2"]  # type: ignore[attr-defined]
    reply.finish()
    assert reply.message.content[1:] == (
        ToolUseBlock("c1", "search", {"q": "cats"}, '{"q": "cats"}'),
        ToolUseBlock("c2", "get_time", {"tz": "UTC"}, '{"tz": "UTC"}'),
    )
    assert assemble(reply.events, strict=True) == [reply.message]


def test_a_closed_tool_call_cannot_go_on() -> None:
    reply = ReplyEmitter()
    reply.tool_call("c1", "search", '{"q": ')
    reply.text("meanwhile")
    with pytest.raises(ArgumentValueError, match=r"'c1' was closed when another block began \(a text or thinking block, or one given whole with block\(\)\)"):
        reply.tool_call("c1", arguments='"cats"}')
    with pytest.raises(ArgumentValueError, match="named 'search', not 'find'"):
        reply.tool_call("c2", "search")
        reply.tool_call("c2", "find", "{}")
    reply.tool_call("c2", "", "{}")  # the name again as "", as some providers send it: no name, not another
    with pytest.raises(ArgumentValueError, match="'c3' opens here: give its name with its first fragment"):
        reply.tool_call("c3", arguments="{}")
    reply.finish()
    assert reply.message.get_content_blocks(ToolUseBlock)[1] == ToolUseBlock("c2", "search", {}, "{}")
    assert [call.id for call in reply.message.get_content_blocks(ToolUseBlock)] == ["c1", "c2"]


def test_an_error_before_anything_was_sent_loses_no_event() -> None:
    reply = ReplyEmitter()
    with pytest.raises(ArgumentTypeError, match="ReplyEmitter.text delta must be a str"):
        reply.text(7)  # type: ignore[arg-type]
    assert _types(reply.text("ok")) == ["AgentStartEvent", "ModelCallStartEvent", "TextBlockStartEvent", "TextBlockDeltaEvent"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ReplyEmitter(3), "ReplyEmitter name must be a str or None"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter(id=3), "ReplyEmitter id must be a str"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter(metadata=[1]), "ReplyEmitter metadata"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter().tool_call(None), "tool_call id must be a str"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter().tool_call("c1", "f", None), "tool_call arguments must be a str"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter().tool_call("c1", "f", metadata=[1]), "tool_call metadata"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter().block("text"), "needs a content block instance"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter().end_model_call({"input_tokens": 1}), "must be a ChatUsage or None"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter().finish("MODEL_STOP"), "generate_reason"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter().finish(with_result=1), "with_result must be a bool"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter().text("x", new_block=None), "text new_block must be a bool"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter().finish(metadata=[1]), "ReplyEmitter.finish metadata"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter().tool_result(1), "tool_result id must be a str"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter().tool_result("c1", {"text": "x"}), "output must be a str or a content block"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter().tool_result("c1", name=2), "tool_result name must be a str or None"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter().end_tool_result("c1", "success"), "end_tool_result state"),  # type: ignore[arg-type]
        (lambda: ReplyEmitter().end_tool_result("c1", metadata=[1]), "end_tool_result metadata"),  # type: ignore[arg-type]
    ],
)
def test_wrong_arguments_say_what_is_expected(call: Any, message: str) -> None:
    with pytest.raises(ArgumentTypeError, match=message):
        call()


# -- properties --------------------------------------------------------------------------


def _waiting_asking(message: AssistantMessage) -> AssistantMessage:
    """``message`` as a reply that finishes asking for permission makes it: each PENDING call no
    result answers (a result answers the earliest unanswered call of its id before it) is ASKING."""
    if message.get_generate_reason() is not GenerateReason.PERMISSION_ASKING:
        return message
    unanswered: dict[str | None, list[int]] = {}
    for index, block in enumerate(message.content):
        if isinstance(block, ToolUseBlock):
            unanswered.setdefault(block.id, []).append(index)
        elif isinstance(block, ToolResultBlock) and unanswered.get(block.id):
            unanswered[block.id].pop(0)
    waiting = {index for indexes in unanswered.values() for index in indexes}
    content = [
        block.with_state(ToolCallState.ASKING)
        if index in waiting and isinstance(block, ToolUseBlock) and block.state is ToolCallState.PENDING
        else block
        for index, block in enumerate(message.content)
    ]
    return message.with_content(content)


_REQUESTS = {
    RequireUserConfirmEvent: Msg.METADATA_CONFIRM_REQUEST_REPLY_ID,
    RequireExternalExecutionEvent: Msg.METADATA_EXTERNAL_EXECUTION_REQUEST_REPLY_ID,
}


@given(replies())
def test_a_message_sent_block_by_block_comes_back(message: AssistantMessage) -> None:
    reply = ReplyEmitter(message.name, id=message.id, metadata=message.metadata)
    for block in message.content:
        reply.block(block)
    reply.end_model_call(message.usage)
    reply.finish(message.get_generate_reason())
    expected = _without_time(_waiting_asking(message))
    if message.get_generate_reason() is GenerateReason.MODEL_STOP:  # the default, which no event states
        expected["metadata"].pop(Msg.METADATA_GENERATE_REASON, None)
    for request_class, key in _REQUESTS.items():
        # A live reply asks under the id the message records, or under one it makes and records.
        for request in (event for event in reply.events if type(event) is request_class):
            asked_under: str = request.reply_id  # type: ignore[attr-defined]
            assert asked_under and asked_under != message.metadata.get(key)  # its own, not one copied along
            expected["metadata"][key] = asked_under
    for key in _REQUESTS.values():  # what the reply does not ask, it does not record
        if not any(type(event) in _REQUESTS and _REQUESTS[type(event)] == key for event in reply.events):
            expected["metadata"].pop(key, None)
    if message.id is None:
        expected["id"] = reply.reply_id
    assert _without_time(reply.message) == expected
    assert reply.message.timestamp is not None
    _check_well_formed(reply.events)
    assert assemble(reply.events, strict=True) == [reply.message]
    assert assemble([AgentEvent.from_json(event.to_json()) for event in reply.events]) == [reply.message]


_CALL_IDS = st.sampled_from(["c1", "c2", "c3"])
_FRAGMENTS = st.sampled_from(['{"q": ', '"cats"', "}", "", "[1, 2]", '{"n": 1}', "{"])
_OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("text"), st.text(max_size=6)),
        st.tuples(st.just("thinking"), st.text(max_size=6)),
        st.tuples(st.just("call"), _CALL_IDS, _FRAGMENTS),
        st.tuples(st.just("result"), _CALL_IDS),
        st.tuples(st.just("output"), _CALL_IDS, st.text(max_size=4) | st.just(ImageBlock(URLSource("https://e.com/a.png")))),
        st.tuples(st.just("done"), _CALL_IDS, st.sampled_from(ToolResultState)),
        st.tuples(st.just("end"), st.none() | chat_usages()),
    ),
    max_size=25,
)


class _Expected:
    """The message a reply's live operations must make, worked out independently."""

    def __init__(self) -> None:
        self.blocks: list[list[Any]] = []  # [kind, id, parts], and for a streamed result [kind, id, items, name, state]
        self.open: list[Any] | None = None  # a text or thinking block
        self.open_calls: dict[str, list[Any]] = {}
        self.closed_calls: set[str] = set()  # of the current model call
        self.called: set[str] = set()  # the ids of every call made
        self.open_results: dict[str, list[Any]] = {}
        self.acting: set[str] | None = None  # in an acting phase: the ids of its results
        self.left_running: set[str] = set()  # results still open when a block of the model came
        self.usage: ChatUsage | None = None

    def delta(self, kind: str, delta: str) -> None:
        if self.open is not None and self.open[0] == kind:
            self.open[2].append(delta)
        elif delta:
            self.close()
            self.end_acting()
            self.open = [kind, None, [delta]]
            self.blocks.append(self.open)

    def call(self, call_id: str, fragment: str) -> bool:
        """False when the call cannot go on."""
        if call_id in self.open_calls:
            self.open_calls[call_id][2].append(fragment)
            return True
        if call_id in self.closed_calls:
            return False
        self.open = None  # a text or thinking block; the other calls stay open
        self.end_acting()
        call: list[Any] = ["call", call_id, [fragment]]
        self.open_calls[call_id] = call
        self.called.add(call_id)
        self.left_running.discard(call_id)
        self.blocks.append(call)
        return True

    def whole_result(self, result: ToolResultBlock) -> bool:
        """False when it would be a second result of its call by mistake."""
        if result.id in self.open_results or result.id in self.left_running:
            return False
        if self.acting is not None and result.id in self.acting:
            if self.open_results:
                return False
            self.end_acting()  # a second result of one call: in an acting phase of its own
        self.enter_acting(str(result.id))
        self.blocks.append(["result", None, [result]])
        return True

    def output(self, call_id: str, item: str | ContentBlock) -> bool:
        """False when the result ended in this acting phase."""
        result = self.open_results.get(call_id)
        if result is None:
            if call_id in self.left_running or self.acting is not None and call_id in self.acting:
                return False
            self.enter_acting(call_id)
            result = ["streamed", call_id, [], "tool" if call_id in self.called else None, ToolResultState.RUNNING]
            self.open_results[call_id] = result
            self.blocks.append(result)
        if isinstance(item, str):
            if item and result[2] and isinstance(result[2][-1], str):
                result[2][-1] += item  # text deltas merge
            elif item:
                result[2].append(item)
        else:
            result[2].append(item)
        return True

    def done(self, call_id: str, state: ToolResultState) -> bool:
        """False when no such result is open."""
        result = self.open_results.pop(call_id, None)
        if result is None:
            return False
        result[4] = state
        return True

    def enter_acting(self, call_id: str) -> None:
        if self.acting is None:
            self.end_model_call()
            self.acting = set()
        self.acting.add(call_id)

    def end_acting(self) -> None:
        self.left_running.update(self.open_results)  # they stay RUNNING
        self.open_results, self.acting = {}, None

    def close(self) -> None:
        self.closed_calls.update(self.open_calls)
        self.open, self.open_calls = None, {}

    def end_model_call(self) -> None:
        self.open, self.open_calls, self.closed_calls = None, {}, set()

    def content(self) -> list[ContentBlock]:
        content: list[ContentBlock] = []
        for kind, block_id, parts, *result in self.blocks:
            if kind == "result":
                content.append(parts[0])
                continue
            if kind == "streamed":
                output = [TextBlock(item) if isinstance(item, str) else item for item in parts]
                content.append(ToolResultBlock(block_id, result[0], output, state=result[1]))
                continue
            joined = "".join(parts)
            if kind == "text":
                content.append(TextBlock(joined))
            elif kind == "thinking":
                content.append(ThinkingBlock(joined))
            else:
                content.append(ToolUseBlock(block_id, "tool", parse_tool_arguments(joined)[0], joined or None))
        return content


@given(_OPERATIONS)
def test_live_operations_make_the_message_they_describe(operations: list[Any]) -> None:
    reply, expected, client = ReplyEmitter(), _Expected(), MessageAssembler(strict=True)
    sent: list[AgentEvent] = []
    client_fed: list[AgentEvent] = []
    for operation in operations:
        kind = operation[0]
        if kind in ("text", "thinking"):
            sent += getattr(reply, kind)(operation[1])
            expected.delta(kind, operation[1])
        elif kind == "call":
            if expected.call(operation[1], operation[2]):
                sent += reply.tool_call(operation[1], "tool", operation[2])
            else:
                with pytest.raises(ArgumentValueError):
                    reply.tool_call(operation[1], "tool", operation[2])
        elif kind == "result":
            result = ToolResultBlock(operation[1], "tool", [TextBlock("done")], state=ToolResultState.SUCCESS)
            if expected.whole_result(result):
                sent += reply.block(result)
            else:
                with pytest.raises(ArgumentValueError):
                    reply.block(result)
        elif kind in ("output", "done"):
            live, model = (reply.tool_result, expected.output) if kind == "output" else (reply.end_tool_result, expected.done)
            if model(operation[1], operation[2]):
                sent += live(operation[1], operation[2])
            else:
                with pytest.raises(ArgumentValueError):
                    live(operation[1], operation[2])
        elif operation[1] is not None and expected.open_results:  # a usage now would end their acting phase
            with pytest.raises(ArgumentValueError):
                reply.end_model_call(operation[1])
        else:
            sent += reply.end_model_call(operation[1])
            if operation[1] is not None:  # an empty model call carries it: the acting phase ends
                expected.end_acting()
                expected.usage = operation[1] if expected.usage is None else expected.usage + operation[1]
            expected.end_model_call()
        for event in sent[len(client_fed) :]:
            client_fed.append(event)
            client.feed(event)
        assert client.snapshot() == reply.snapshot()  # what a client shows is what the server has
    assert tuple(sent) == reply.events
    reply.finish()
    assert list(reply.message.content) == expected.content()
    assert reply.message.usage == expected.usage
    _check_well_formed(reply.events)
    assert assemble(reply.events, strict=True) == [reply.message]
