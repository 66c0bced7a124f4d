"""MessageAssembler on streams shaped as AgentScope Java's ReActAgent sends them, where they differ
from this package's emitter: sub-agents run twice in one reply (each run's reply id is None), hints
under the session's reply id, calls listed PENDING for confirmation, a generate reason stated only
in the AgentResultEvent, and ids that are random (Java's UUIDs without dashes)."""

from __future__ import annotations

import uuid

import attrs
import pytest
from lines_run import lines_run

from agentscope_py import (
    AgentEndEvent,
    AgentEvent,
    AgentResultEvent,
    AgentStartEvent,
    AllToolsDeniedEvent,
    AnomalyKind,
    AssistantMessage,
    ChatUsage,
    ExceedMaxItersEvent,
    GenerateReason,
    HintBlock,
    HintBlockEvent,
    MessageAssembler,
    ModelCallEndEvent,
    ModelCallStartEvent,
    Msg,
    RequestStopEvent,
    RequireExternalExecutionEvent,
    RequireUserConfirmEvent,
    StreamError,
    TextBlock,
    TextBlockDeltaEvent,
    TextBlockEndEvent,
    TextBlockStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolCallState,
    ToolUseBlock,
    assemble,
    events_from_message,
)
from agentscope_py.event import _agent_replies, _routing

SUB = "main/researcher"
T = "2024-01-01 00:00:00.000"


def java_id() -> str:
    return uuid.uuid4().hex


def model_call(text: str, source: str | None = None) -> list[AgentEvent]:
    """One model call answering ``text``, under a fresh reply id, as Java streams it."""
    call = java_id()
    return [
        ModelCallStartEvent(call, id=java_id(), source=source),
        TextBlockStartEvent(call, "text", id=java_id(), source=source),
        TextBlockDeltaEvent(call, "text", text, id=java_id(), source=source),
        TextBlockEndEvent(call, "text", id=java_id(), source=source),
        ModelCallEndEvent(call, ChatUsage(1, 1), id=java_id(), source=source),
    ]


def sub_agent_run(text: str) -> list[AgentEvent]:
    """A run of a sub-agent spawned by a tool: Java starts and ends it with the reply id None."""
    return [
        AgentStartEvent(java_id(), None, "researcher", id=java_id(), source=SUB),
        *model_call(text, SUB),
        AgentEndEvent(None, id=java_id(), source=SUB),
    ]


def reply_spawning_twice() -> list[AgentEvent]:
    return [
        AgentStartEvent(None, "R", "Friday", id=java_id()),
        *model_call("asking"),
        *sub_agent_run("first"),
        *sub_agent_run("second"),
        *model_call("done"),
        AgentEndEvent("R", id=java_id()),
    ]


@pytest.mark.parametrize("strict", [False, True])
def test_a_sub_agent_run_twice_in_one_reply_gives_two_messages(strict: bool) -> None:
    result = assemble(reply_spawning_twice(), strict=strict)
    assert [(m.name, m.get_text_content()) for m in result] == [
        ("researcher", "first"),
        ("researcher", "second"),
        ("Friday", "asking\ndone"),  # two text blocks, one per model call
    ]
    assert result.anomalies == ()


def test_a_resume_inside_the_reply_replays_the_finished_sub_agent_runs_harmlessly() -> None:
    events = reply_spawning_twice()
    expected = assemble(events)
    for received in range(1, len(events)):
        for checkpoint in range(0, received, 3):
            client = MessageAssembler(strict=True)  # a replayed event is no anomaly: strict does not raise
            done = client.feed_all(events[:received])
            done += client.feed_all(events[checkpoint:])
            assert done == expected, (received, checkpoint)
            assert client.anomalies == ()


@pytest.mark.parametrize("outer", [None, "main"])
def test_a_resume_inside_a_sub_agent_run_after_its_next_began_changes_nothing(outer: str | None) -> None:
    # The outermost reply may have a source of its own (a server tagging its agent "main"): its
    # sub-agents' ("main/helper") finished runs are inside it all the same.
    helper = f"{outer or 'main'}/helper"
    parent = AssistantMessage("parent answer", name="boss", timestamp=T)
    first = AssistantMessage("need ok", name="helper", timestamp=T, generate_reason=GenerateReason.MAX_ITERATIONS)
    second = AssistantMessage("done", name="helper", timestamp=T)
    top, run_1, run_2 = (
        events_from_message(parent, source=outer),
        events_from_message(first, source=helper),
        events_from_message(second, source=helper),
    )
    events = top[:1] + run_1 + run_2[:2] + top[1:-1] + run_2[2:] + top[-1:]
    dropped = 1 + len(run_1) + 2  # the connection drops once the second run began
    for strict in (False, True):
        resumed = assemble(events[:dropped] + events[1:], strict=strict)  # replayed from the first run's start
        assert resumed == [first, second, parent]
        assert resumed.anomalies == ()


def test_sub_agent_runs_numbered_anew_in_each_top_level_reply_are_runs_of_their_own() -> None:
    # Ids need differ only within a top-level reply: the next reply's sub-agent run may reuse the
    # ids that framed a run of the last.
    def numbered_reply(reply_id: str, text: str) -> list[AgentEvent]:
        events = [AgentStartEvent(None, reply_id, "Friday"), *sub_agent_run(f"sub {text}"), *model_call(text), AgentEndEvent(reply_id)]
        return [attrs.evolve(event, id=str(index)) for index, event in enumerate(events)]

    for strict in (False, True):
        result = assemble(numbered_reply("R1", "one") + numbered_reply("R2", "two"), strict=strict)
        assert [(m.name, m.id, m.get_text_content()) for m in result] == [
            ("researcher", None, "sub one"),
            ("Friday", "R1", "one"),
            ("researcher", None, "sub two"),
            ("Friday", "R2", "two"),
        ]
        assert result.anomalies == ()


def test_a_finished_sub_agent_run_replayed_on_its_own_is_late_not_a_new_run() -> None:
    # With no top-level reply open, its ids are forgotten; its start and end are still known.
    run = sub_agent_run("first")
    assembler = MessageAssembler()
    assert [m.get_text_content() for m in assembler.feed_all(run)] == ["first"]
    assert assembler.feed_all(run) == []
    assert assembler.close() == []
    assert {anomaly.kind for anomaly in assembler.anomalies} == {AnomalyKind.LATE_EVENT}
    with pytest.raises(StreamError, match="already completed"):
        MessageAssembler(strict=True).feed_all(run + run[:1])


@pytest.mark.parametrize("strict", [False, True])
def test_hints_under_the_sessions_reply_id_go_to_each_reply(strict: bool) -> None:
    # Java's harness gives a hint the session's reply id, the same in every reply of the session.
    session = java_id()
    events: list[AgentEvent] = []
    for hint in ("be brief", "hurry"):
        reply = java_id()
        events += [
            AgentStartEvent(None, reply, "Friday", id=java_id()),
            HintBlockEvent(session, java_id(), "alice", hint, id=java_id()),
            *model_call("ok"),
            AgentEndEvent(reply, id=java_id()),
        ]
    result = assemble(events, strict=strict)
    assert [[type(block) for block in m.content] for m in result] == [[HintBlock, TextBlock]] * 2
    assert [m.get_first_content_block(HintBlock) for m in result] == [
        HintBlock(events[1].block_id, "be brief", "alice"),  # type: ignore[attr-defined]
        HintBlock(events[9].block_id, "hurry", "alice"),  # type: ignore[attr-defined]
    ]
    assert result.anomalies == ()


@pytest.mark.parametrize(
    "reason", [GenerateReason.INTERRUPTED, GenerateReason.STRUCTURED_OUTPUT, GenerateReason.REASONING_STOP_REQUESTED]
)
def test_a_reason_java_states_only_in_the_result_is_taken_from_it(reason: GenerateReason) -> None:
    final = AssistantMessage("I noticed that you have interrupted me.", generate_reason=reason)
    events = [AgentStartEvent(None, "R", "Friday"), *model_call("Let me"), AgentResultEvent(final), AgentEndEvent("R")]
    [message] = assemble(events)
    assert message.get_generate_reason() is reason
    assert message.get_text_content() == "Let me"  # the result's blocks are not the reply's


def test_a_reason_the_result_states_wins_over_the_events() -> None:
    # Java's call() returns the result: a hook that stops the run after it asked for external
    # execution ends it ACTING_STOP_REQUESTED; a summary interrupted after the iterations ran out,
    # INTERRUPTED (ReActAgent's acting and summarizing paths).
    suspended = AssistantMessage("x", generate_reason=GenerateReason.ACTING_STOP_REQUESTED)
    waiting = RequireExternalExecutionEvent(java_id(), [ToolUseBlock("c1", "f")])
    interrupted = AssistantMessage("x", generate_reason=GenerateReason.INTERRUPTED)
    for events, reason in (
        ([AgentStartEvent(None, "R", "a"), waiting, AgentResultEvent(suspended), AgentEndEvent("R")], suspended),
        ([AgentStartEvent(None, "R", "a"), ExceedMaxItersEvent("", 3, 3), AgentResultEvent(interrupted), AgentEndEvent("R")], interrupted),
        # Whatever comes after it: the result is the run's end.
        ([AgentStartEvent(None, "R", "a"), AgentResultEvent(interrupted), RequestStopEvent("stop"), AgentEndEvent("R")], interrupted),
    ):
        assert assemble(events)[0].get_generate_reason() is reason.get_generate_reason()


def test_a_result_stating_no_reason_leaves_the_events_reason() -> None:
    # A producer may leave the reason out of its result; the event said it.
    events = [
        AgentStartEvent(None, "R", "a"),
        ExceedMaxItersEvent("", 3, 3),
        AgentResultEvent(AssistantMessage("summary")),
        AgentEndEvent("R"),
    ]
    assert assemble(events)[0].get_generate_reason() is GenerateReason.MAX_ITERATIONS


def test_a_result_stating_model_stop_wins_as_any_stated_reason_does() -> None:
    stated = AssistantMessage("x", metadata={Msg.METADATA_GENERATE_REASON: "MODEL_STOP"})
    events = [AgentStartEvent(None, "R", "a"), ExceedMaxItersEvent("", 3, 3), AgentResultEvent(stated), AgentEndEvent("R")]
    [message] = assemble(events)
    assert message.get_generate_reason() is GenerateReason.MODEL_STOP
    assert Msg.METADATA_GENERATE_REASON not in message.metadata  # the default, written nowhere


def test_all_tools_denied_lapses_when_the_run_goes_on_with_another_model_call() -> None:
    # Java's agent goes on to the next iteration after all tools were denied, unless a middleware
    # asks it to stop (ReActAgent.emitAllToolsDeniedThroughMiddleware); its result then states no reason.
    denied = AllToolsDeniedEvent([ToolUseBlock("c1", "rm", {})])
    went_on = [AgentStartEvent(None, "R", "a"), *model_call("Let me"), denied, *model_call("Done."), AgentEndEvent("R")]
    assert assemble(went_on)[0].get_generate_reason() is GenerateReason.MODEL_STOP
    with_result = [*went_on[:-1], AgentResultEvent(AssistantMessage("Done.")), AgentEndEvent("R")]
    assert assemble(with_result)[0].get_generate_reason() is GenerateReason.MODEL_STOP
    stopped = [AgentStartEvent(None, "R", "a"), *model_call("Let me"), denied, AgentEndEvent("R")]
    assert assemble(stopped)[0].get_generate_reason() is GenerateReason.ALL_TOOLS_DENIED
    asked_to_stop = [*stopped[:-1], RequestStopEvent("denied", GenerateReason.ALL_TOOLS_DENIED), *model_call("x"), AgentEndEvent("R")]
    assert assemble(asked_to_stop)[0].get_generate_reason() is GenerateReason.ALL_TOOLS_DENIED
    # A reason the result states stays, whatever comes after it.
    interrupted = AgentResultEvent(AssistantMessage("x", generate_reason=GenerateReason.INTERRUPTED))
    result_first = [*stopped[:-1], interrupted, *model_call("x"), AgentEndEvent("R")]
    assert assemble(result_first)[0].get_generate_reason() is GenerateReason.INTERRUPTED


def test_the_calls_the_permission_check_let_through_take_their_state_from_the_result() -> None:
    # Java asks the user about c1 and lets c2 through: its final message says ASKING and ALLOWED,
    # and no event states c2's.
    call = java_id()
    asked, allowed = ToolUseBlock("c1", "rm", {}), ToolUseBlock("c2", "ls", {})
    final = AssistantMessage(
        attrs.evolve(asked, state=ToolCallState.ASKING),
        attrs.evolve(allowed, state=ToolCallState.ALLOWED),
        generate_reason=GenerateReason.PERMISSION_ASKING,
    )
    events = [
        AgentStartEvent(None, "R", "a"),
        ModelCallStartEvent(call),
        *[event for block in (asked, allowed) for event in (
            ToolCallStartEvent(call, block.id, block.name),
            ToolCallDeltaEvent(call, block.id, block.name, "{}"),
            ToolCallEndEvent(call, block.id, block.name),
        )],
        ModelCallEndEvent(call),
        RequireUserConfirmEvent(java_id(), [asked]),
        RequestStopEvent("permission asking", GenerateReason.PERMISSION_ASKING),
        AgentResultEvent(final),
        AgentEndEvent("R"),
    ]
    [message] = assemble(events, strict=True)
    assert [(block.id, block.state) for block in message.get_content_blocks(ToolUseBlock)] == [
        ("c1", ToolCallState.ASKING), ("c2", ToolCallState.ALLOWED)
    ]
    # Without the result, the call no event names stays as the model made it.
    [without] = assemble([event for event in events if type(event) is not AgentResultEvent])
    assert [block.state for block in without.get_content_blocks(ToolUseBlock)] == [ToolCallState.ASKING, ToolCallState.PENDING]


def test_a_result_that_ends_normally_writes_no_reason() -> None:
    events = [AgentStartEvent(None, "R", "a"), *model_call("hi"), AgentResultEvent(AssistantMessage("hi")), AgentEndEvent("R")]
    [message] = assemble(events)
    assert message.metadata == {}


def test_a_sub_agent_hint_replayed_after_its_run_is_no_new_reply() -> None:
    # The hint names the session's reply id, no model call: once the run completed, only its id
    # says it belongs to the run, replayed from a checkpoint inside the top-level reply.
    run = sub_agent_run("first")
    run.insert(1, HintBlockEvent(java_id(), java_id(), "system", "hurry", id=java_id(), source=SUB))
    events = [AgentStartEvent(None, "R", "Friday", id=java_id()), *model_call("asking"), *run, *model_call("done"), AgentEndEvent("R", id=java_id())]
    expected = assemble(events)
    assert [m.name for m in expected] == ["researcher", "Friday"]
    cut = events.index(run[-1]) + 3  # the run completed, the next model call begun
    client = MessageAssembler(strict=True)
    done = client.feed_all(events[:cut]) + client.feed_all(events[events.index(run[0]) + 1 :])
    assert done == expected and client.anomalies == ()


def test_ids_need_only_differ_within_a_top_level_reply() -> None:
    # A producer that numbers each reply's events from 0 (a stream per reply, say); sub-agents'
    # replies inside numbered from 0 too.
    def numbered(events: list[AgentEvent]) -> list[AgentEvent]:
        return [attrs.evolve(event, id=str(index)) for index, event in enumerate(events)]

    first, second = AssistantMessage("one", id="r1", timestamp=T), AssistantMessage("two", id="r2", timestamp=T)
    assert assemble(numbered(events_from_message(first)) + numbered(events_from_message(second))) == [first, second]
    top = numbered(events_from_message(AssistantMessage("top", id="top", timestamp=T)))
    sub = AssistantMessage("sub", id="s", timestamp=T)
    result = assemble(top[:3] + numbered(events_from_message(sub, source=SUB)) + top[3:])
    assert [(m.id, m.get_text_content()) for m in result] == [("s", "sub"), ("top", "top")]
    assert result.anomalies == ()


@pytest.mark.parametrize("with_result", [False, True])
def test_a_completed_replys_outcome_replayed_in_the_next_reply_is_late(with_result: bool) -> None:
    # The events that state a reply's generate reason (and its AgentResultEvent) name no model call:
    # replayed from a checkpoint inside the completed reply, they went into the next, which came out
    # asking for permission under the first reply's request id.  From every checkpoint.
    asking = AssistantMessage(
        "may I?", ToolUseBlock("c1", "rm", {}), id="r1", name="a", timestamp=T,
        generate_reason=GenerateReason.PERMISSION_ASKING,
    )
    plain = AssistantMessage("hello", id="r2", name="a", timestamp=T)
    first = events_from_message(asking, with_result=with_result)
    events = first + events_from_message(plain, with_result=with_result)
    assert {type(event) for event in first} >= {RequireUserConfirmEvent, RequestStopEvent}
    for received in range(len(first) + 1, len(events)):  # the client saw the next reply begin
        for checkpoint in range(received):
            result = assemble(events[:received] + events[checkpoint:])
            assert result == [asking, plain], (received, checkpoint)
            assert {anomaly.kind for anomaly in result.anomalies} <= {AnomalyKind.LATE_EVENT}
    # With no reply open, they are late too, not outside any reply.
    result = assemble(first + first[-4:])
    assert result == [asking] and [anomaly.kind for anomaly in result.anomalies] == [AnomalyKind.LATE_EVENT] * 4


def test_the_next_replys_own_outcome_under_a_used_id_is_no_replay() -> None:
    # Numbered anew in each reply, the next reply's events reuse the ids: what each states is its own.
    # (A RequestStopEvent names no reply: made in another millisecond, it is another event.)
    def numbered(message: AssistantMessage, second: int) -> list[AgentEvent]:
        made = f"2026-01-01T00:00:0{second}.000Z"
        return [attrs.evolve(event, id=str(index), created_at=made) for index, event in enumerate(events_from_message(message))]

    first = AssistantMessage("one", id="r1", timestamp=T, generate_reason=GenerateReason.MAX_ITERATIONS)
    second = AssistantMessage("two", id="r2", timestamp=T, generate_reason=GenerateReason.MAX_ITERATIONS)
    result = assemble(numbered(first, 1) + numbered(second, 2))
    assert result == [first, second] and result.anomalies == ()


def test_a_completed_replys_hint_replayed_in_the_next_reply_is_late() -> None:
    hinted = AssistantMessage([HintBlock("h1", "be brief", "alice"), "one"], id="r1", timestamp=T)
    plain = AssistantMessage("two", id="r2", timestamp=T)
    first, second = events_from_message(hinted), events_from_message(plain)
    # The client saw the next reply begin; the server replays from inside the first.
    result = assemble(first + second[:3] + first[1:] + second)
    assert result == [hinted, plain]
    assert {anomaly.kind for anomaly in result.anomalies} == {AnomalyKind.LATE_EVENT}


def test_replies_ending_while_finished_sub_agent_runs_are_remembered_take_linear_work() -> None:
    # The ids of the sub-agent runs that completed inside the open reply are kept for its resume;
    # each reply's end walked all of them (a bare model call's, another agent's), though only the end
    # of a reply enclosing them can leave them enclosed by none.
    def stream(runs: int) -> list[AgentEvent]:
        events: list[AgentEvent] = [AgentStartEvent(None, "top", "main", source="a")]
        for run in range(runs):
            events += [AgentStartEvent(None, None, "helper", source=f"a/s{run}"), AgentEndEvent(None, source=f"a/s{run}")]
        for call in range(runs):
            events += [ModelCallStartEvent(f"m{call}", source="x"), ModelCallEndEvent(f"m{call}", source="x")]
            events += [AgentStartEvent(None, f"b{call}", "other", source=f"b{call}"), AgentEndEvent(f"b{call}", source=f"b{call}")]
        return events

    def work(runs: int) -> int:
        events = stream(runs)
        return lines_run({_routing.__file__, _agent_replies.__file__}, lambda: assemble(events), limit=100 * runs * runs)

    assert work(400) < 6 * work(100)  # four times the runs and calls: about four times the work, not sixteen
    messages = assemble(stream(3))
    assert [message.name for message in messages[:3]] == ["helper"] * 3
