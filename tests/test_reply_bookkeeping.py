"""The bookkeeping of open replies against the definitions it speeds up: which sources the open
agent replies enclose (``AgentReplies``), which calls of a reply listed calls name (``Reply.named_calls``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lines_run import lines_run

from agentscope_py import (
    AgentEndEvent,
    AgentStartEvent,
    MessageAssembler,
    ModelCallEndEvent,
    ModelCallStartEvent,
    ToolCallState,
    ToolUseBlock,
)
from agentscope_py.event._accumulators import ToolCallAccumulator
from agentscope_py.event._agent_replies import AgentReplies
from agentscope_py.event import _reply_state as reply_state
from agentscope_py.event._reply_state import Reply

_SOURCES = st.none() | st.lists(st.sampled_from(["", "a", "b", "a/b"]), min_size=1, max_size=4).map("/".join)


def _encloses(open_sources: set[str | None], source: str | None) -> bool:
    """The definition: an open source that is ``source`` cut at one of its ``/`` (not before the
    first character), or the top-level agent's, which encloses every sub-agent."""
    if source is None or not open_sources:
        return False
    if None in open_sources:
        return True
    return any(source[:cut] in open_sources for cut in range(1, len(source)) if source[cut] == "/")


@given(st.lists(st.tuples(st.booleans(), _SOURCES), max_size=30), st.lists(_SOURCES, min_size=1, max_size=10))
def test_encloses_what_the_definition_says_as_replies_open_and_close(steps: list[tuple[bool, str | None]], asked: list[str | None]) -> None:
    replies = AgentReplies()
    open_sources: set[str | None] = set()
    reply: Any = object()  # the tree does not look at the replies
    for opens, source in steps:
        if opens:
            replies[source] = reply
            open_sources.add(source)
        elif source in replies:
            del replies[source]
            open_sources.discard(source)
        assert set(replies) == open_sources
        for candidate in [*asked, source]:
            assert replies.encloses(candidate) == _encloses(open_sources, candidate), (open_sources, candidate)
    for source in list(replies):
        del replies[source]
    assert getattr(replies, "_tree", {}) == {}  # pruned as the replies closed: it holds the open sources only


@settings(max_examples=500)
@given(st.lists(st.tuples(st.sampled_from(["start", "end", "call"]), st.sampled_from([None, "a", "a/b", "a/b/c", "x"])), max_size=30))
# An enclosing reply opening outside one that enclosed a completed run, then that one ending first.
@example([("start", "a/b"), ("call", "a/b/c"), ("start", "a"), ("end", "a/b"), ("end", "a")])
def test_the_ids_kept_for_a_resume_are_those_of_replies_an_open_reply_still_encloses(
    steps: list[tuple[str, str | None]],
) -> None:
    # The ids of the replies that completed inside an open one are kept for a resume from inside it;
    # each is registered under an open reply that encloses it, whose end looks at it again, so that
    # the end of any reply need not walk them all (which made many sub-agents' runs quadratic).
    assembler = MessageAssembler()
    kept: set[str | None] = set()  # the sources whose replies completed inside one still open
    for number, (step, source) in enumerate(steps):
        before = set(assembler._agent_replies)
        if step == "start":  # completes the source's open reply, if any
            assembler.feed(AgentStartEvent(None, f"r{number}", "agent", source=source))
            completed = source in before
        elif step == "end":
            reply = assembler._agent_replies.get(source)
            assembler.feed(AgentEndEvent(None if reply is None else reply.reply_id, source=source))
            completed = reply is not None
        else:  # a model call: a bare reply of its own, which it completes, when its source has no reply open
            assembler.feed_all([ModelCallStartEvent(f"m{number}", source=source), ModelCallEndEvent(f"m{number}", source=source)])
            completed = source not in before
        if completed:  # what only the completed reply enclosed is done with, before a start opens another
            after = before - {source}
            kept = {kept_source for kept_source in kept if _encloses(after, kept_source)}
            if _encloses(after, source):
                kept.add(source)
        open_sources = set(assembler._agent_replies)
        assert set(assembler._inner_ids) == kept
        assert set(assembler._inner_of) <= open_sources
        for inner in assembler._inner_ids:  # registered where the end of a reply enclosing it looks
            assert any(inner in assembler._inner_of.get(encloser, ()) for encloser in open_sources if _encloses({encloser}, inner))


def test_a_source_of_a_hundred_thousand_levels_is_placed_below_the_open_replies_above_it() -> None:
    # Cut at each "/" and looked up, it was copied once per level: seconds for one event.  The tree
    # is walked level by level, and stops where no open source goes on.
    replies = AgentReplies()
    replies["x"] = object()  # type: ignore[assignment]
    deep = "x" + "/a" * 100_000
    assert replies.encloses(deep)
    assert not replies.encloses("y" + "/a" * 100_000)
    replies["y/a/a"] = object()  # type: ignore[assignment]
    assert replies.encloses("y" + "/a" * 100_000) and not replies.encloses("y/a/a") and not replies.encloses("y/a")


# -- which listed call names which call of a reply (``Reply.named_calls``) ----------------------

_CALL = st.tuples(
    st.sampled_from(["call_0", "call_1"]), st.sampled_from(["f", "g"]), st.sampled_from(['{"a": 1}', '{"a": 2}', "{}"]), st.booleans()
)


def _named_by_definition(reply: Reply, listed: list[ToolUseBlock]) -> list[tuple[ToolUseBlock, Any]]:
    """From the last listed call back, of the calls with its id not named yet, the latest with its name
    and input whose stream gave the listed state or none, else the latest with its name and input, else
    the latest of no given state, else the latest; in the order listed."""
    named, taken = [], set()
    for call in reversed(listed):
        candidates = [own for own in reversed(reply.calls.get(call.id, ())) if own not in taken]
        if candidates:
            def rank(own: Any) -> int:
                like = (own.name, own.built_input()) == (call.name, call.input)
                given = own.state_given
                return 3 if like and (not given or own.state is call.state) else 2 if like else 1 if not given else 0

            own = max(candidates, key=rank)
            taken.add(own)
            named.append((call, own))
    return named[::-1]


@given(st.lists(_CALL, max_size=12), st.lists(_CALL, max_size=12))
def test_listed_calls_name_the_calls_the_definition_names(
    calls: list[tuple[str, str, str, bool]], listed: list[tuple[str, str, str, bool]]
) -> None:
    reply = Reply(None, "R", None, False, None)
    for index, (call_id, name, arguments, state_given) in enumerate(calls):
        call = ToolCallAccumulator(call_id, name)
        call.parts.append(arguments)
        if state_given:
            call.take_metadata({"agentscope_block": {"state": "finished"}})
        assert call.state_given is state_given
        reply.add_block(("tool call", "R", f"{call_id}#{index}"), call)
    # Listed FINISHED (the state the calls with a given state have) or PENDING.
    blocks = [
        ToolUseBlock(call_id, name, json.loads(arguments), state=ToolCallState.FINISHED if finished else ToolCallState.PENDING)
        for call_id, name, arguments, finished in listed
    ]
    assert reply.named_calls(blocks) == _named_by_definition(reply, blocks)


def _reply_of_calls(count: int, given: str | None = None, *, numbered: bool = False) -> Reply:
    """A reply whose every model call has its ``call_0`` of tool ``f``, input ``{}`` (``numbered``:
    ``{"i": <the model call's number>}``)."""
    reply = Reply(None, "R", None, False, None)
    for index in range(count):
        call = ToolCallAccumulator("call_0", "f")
        call.parts.append(json.dumps({"i": index}) if numbered else "{}")
        if given is not None:
            call.take_metadata({"agentscope_block": {"state": given}})
        reply.add_block(("tool call", f"M{index}", "call_0"), call)
    return reply


@pytest.mark.parametrize(
    ("given", "listed"),
    [
        (None, ToolUseBlock("call_0", "f", {})),
        ("allowed", ToolUseBlock("call_0", "f", {})),  # listed PENDING: a state its stream did not give
        (None, ToolUseBlock("call_0", "g", {})),  # another tool
        (None, ToolUseBlock("call_0", "f", {"a": 1})),  # another input
    ],
    ids=["the call", "another state", "another tool", "another input"],
)
def test_a_listing_sorts_only_the_calls_new_or_changed_since_the_last(
    monkeypatch: pytest.MonkeyPatch, given: str | None, listed: ToolUseBlock
) -> None:
    # Each model call of a long reply has its call_0, each listed after it (a request for external
    # execution): sorting every earlier call_0 again for each listing made the reply quadratic, and
    # so did listings that contradict the calls (no call of their tool, input and state).
    reply = _reply_of_calls(1000, given)
    assert reply.named_calls([listed]) == [(listed, reply.calls["call_0"][-1])]
    sorted_calls: list[ToolCallAccumulator] = []
    block = ToolCallAccumulator.block

    def counted(call: ToolCallAccumulator) -> Any:
        sorted_calls.append(call)
        return block(call)

    monkeypatch.setattr(ToolCallAccumulator, "block", counted)
    changed = reply.calls["call_0"][10]
    changed.state, changed.built = ToolCallState.ASKING, None  # as a listing's event changes a call
    newest = ToolCallAccumulator("call_0", "f")
    newest.parts.append("{}")
    reply.add_block(("tool call", "M1000", "call_0"), newest)
    for _ in range(3):
        assert reply.named_calls([listed]) == [(listed, newest)]
    assert sorted(map(id, sorted_calls)) == sorted(map(id, [changed, newest]))
    # Listed twice, the earlier listed names the call before.
    assert reply.named_calls([listed, listed]) == [(listed, reply.calls["call_0"][-2]), (listed, newest)]


def test_a_listing_per_model_call_naming_its_earliest_call_takes_linear_work() -> None:
    # Each listing named the earliest call_0, and the calls after it were sorted again to find it:
    # quadratic in the reply's calls.  (Which calls changed is found in C: lines of Python are counted.)
    def work(count: int) -> int:
        reply = _reply_of_calls(count, numbered=True)
        earliest = ToolUseBlock("call_0", "f", {"i": 0})

        def listings() -> None:
            for _ in range(count):
                [(_, call)] = reply.named_calls([earliest])
                assert call is reply.calls["call_0"][0]
                call.state, call.built = ToolCallState.ASKING, None  # as the event's handler does

        return lines_run({reply_state.__file__}, listings, limit=200 * count * count)

    assert work(400) < 6 * work(100)

