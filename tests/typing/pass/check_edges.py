"""What mypy infers at the edges: converters, Server-Sent Events, a live reply's emitter, errors."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Generator

from typing_extensions import assert_type

from agentscope_py import (
    AssistantMessage,
    ContentBlock,
    ConversationError,
    ImageBlock,
    Msg,
    MsgRole,
    TextBlock,
    ToolResultState,
    ToolUseBlock,
    URLSource,
    UserMessage,
)
from agentscope_py.event import AgentEvent, ReplyEmitter
from agentscope_py.interop import (
    ConversationProblem,
    from_agentflow,
    from_anthropic,
    from_anthropic_response,
    from_openai,
    from_openai_response,
    from_swarm_kit,
    from_vercel_ai,
    to_openai,
)
from agentscope_py.sse import (
    AsyncResumableEventStream,
    Chunk,
    EventLog,
    ResumableEventStream,
    aencode_events,
    encode_events,
    parse_messages,
)

# every reader gives messages whose blocks are typed
for read in (from_openai, from_anthropic, from_agentflow, from_vercel_ai, from_swarm_kit):
    assert_type(read([]), list[Msg])
reply = from_openai_response({"choices": [{"message": {"role": "assistant", "content": "hi"}}]})
assert_type(reply, AssistantMessage)
assert_type(from_anthropic_response({"role": "assistant", "content": []}), AssistantMessage)
assert_type(reply.role, MsgRole)

# a conversation annotated as list[Msg] takes messages of every role and what the readers give
conversation: list[Msg] = [UserMessage("hi"), reply]
conversation.extend(from_openai([]))

try:
    to_openai([AssistantMessage(ToolUseBlock("c", "f"))])
except ConversationError as error:
    assert_type(error.problems, tuple[ConversationProblem, ...])
    assert [problem.kind.name for problem in error.problems] == ["UNANSWERED_TOOL_CALL"]

# any of Python's byte containers is a chunk of an event stream, and the alias names them
assert [m.data for m in parse_messages(bytearray(b"data: x\n\n"))] == ["x"]
chunks: list[Chunk] = ["data: a\n", b"\n", memoryview(b"data: b\n\n")]
assert [m.data for m in parse_messages(chunks)] == ["a", "b"]
assert [m.data for m in parse_messages([memoryview(b"data: y\n\n")])] == ["y"]

# a plain Msg holds any block, whatever it was made with: its role is known at run time only
planned = Msg(TextBlock("Let me check."), role=MsgRole.ASSISTANT)
assert_type(planned, Msg[ContentBlock])
assert planned.with_content([*planned.content, ToolUseBlock("c", "f")]).has_content_blocks(ToolUseBlock)

# a live reply: every method gives the events to send; the message is typed as a reply
live = ReplyEmitter("Friday")
assert_type(live.text("Hel"), list[AgentEvent])
assert_type(live.text("", new_block=True), list[AgentEvent])  # closes "Hel"; opens nothing yet
assert_type(live.snapshot(), AssistantMessage | None)
assert_type(live.events, tuple[AgentEvent, ...])
assert_type(live.tool_call("c1", "search", "{}", metadata={"trace": 1}), list[AgentEvent])
assert_type(live.tool_result("c1", "partial output", name="search"), list[AgentEvent])
assert_type(live.tool_result("c1", ImageBlock(URLSource("https://example.com/a.png"))), list[AgentEvent])
assert_type(live.end_tool_result("c1", ToolResultState.ERROR, metadata={"retry": True}), list[AgentEvent])
live.finish()
assert_type(live.message, AssistantMessage)
assert live.message.get_text_content() == "Hel"

# both clients yield events: one to ``for``, the other to ``async for`` (defined, not run: no server)
def read_blocking(url: str) -> None:
    for event in ResumableEventStream(url, stop=lambda event: event.id == "e9"):
        assert_type(event, AgentEvent)


async def read_async(url: str) -> None:
    async for event in AsyncResumableEventStream(url, client=None, headers={"Authorization": b"Bearer t"}):
        assert_type(event, AgentEvent)
    assert_type(AsyncResumableEventStream(url).last_event_id, str)
    # a server's body from the events an async producer yields
    assert_type(aencode_events(AsyncResumableEventStream(url), last_event_id="e9"), AsyncIterator[str])

# a log of a reply being produced: events in, a blocking or an async follower out
log = EventLog()
log.add(live.events)
log.close()
assert_type(log.follow(), Generator[AgentEvent, None, None])
assert_type(log.afollow("e9"), AsyncGenerator[AgentEvent, None])
assert_type(log.encode_events("e9", keep_alive=15.0), Generator[str, None, None])
assert "".join(encode_events(log.follow())) == "".join(encode_events(live.events))

