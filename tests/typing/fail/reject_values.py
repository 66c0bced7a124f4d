"""Immutability and wrong argument types mypy rejects.  Each marked line must fail with that code."""

from __future__ import annotations

import httpx

from agentscope_py import (
    AssistantMessage,
    ChatUsage,
    DataBlock,
    GenerateReason,
    MessageMetadataKeys,
    ImageBlock,
    Msg,
    MsgRole,
    TextBlock,
    ToolCallState,
    ToolResultBlock,
    ToolResultMessage,
    ToolUseBlock,
    URLSource,
    UserMessage,
)
from agentscope_py import TextBlok  # E: attr-defined
from agentscope_py import sse
from agentscope_py.event import AgentEndEvent, ReplyEmitter
from agentscope_py.schema import json_schema

sse.MAX_RETRY = 1000  # E: misc "Cannot assign to final name"
MessageMetadataKeys.CHAT_USAGE = "usage"  # E: misc "Cannot assign to final attribute"

msg = UserMessage("hi", name="alice")
call = ToolUseBlock("call_1", "zoom", {"x": 1})
source = URLSource("https://example.com/cat.png")

# everything is frozen
msg.name = "bob"  # E: misc "is read-only"
msg.content = ()  # E: misc "is read-only"
msg.role = MsgRole.ASSISTANT  # E: misc "is read-only"
msg.nmae = "bob"  # E: attr-defined
TextBlock("x").txt = "y"  # E: attr-defined
UserMessage.to_json_list([AssistantMessage("hi")])  # E: list-item "AssistantMessage"
msg.metadata["k"] = 1  # E: index
call.input["x"] = 2  # E: index
call.state = ToolCallState.FINISHED  # E: misc "is read-only"
TextBlock("x").text = "y"  # E: misc "is read-only"
ChatUsage().total_tokens = 3  # E: misc "is read-only"

# constructors check their argument types
TextBlock(3)  # E: arg-type "int"
TextBlock(text=None)  # E: arg-type "None"
DataBlock("https://example.com/cat.png")  # E: arg-type "str"
ImageBlock(source, "1024")  # E: arg-type "str"
ToolUseBlock("c", "n", [("x", 1)])  # E: arg-type "list[tuple[str, int]]"
ToolUseBlock("c", "n", state="pending")  # E: arg-type "str"
ToolResultBlock("c", "n", state=ToolCallState.FINISHED)  # E: arg-type "ToolCallState"
ToolResultBlock("c", "n", ["not a block"])  # E: list-item "str"
UserMessage("hi", name=3)  # E: arg-type "int"
UserMessage("hi", metadata=[("k", 1)])  # E: arg-type "list[tuple[str, int]]"
UserMessage("hi", generate_reason="MODEL_STOP")  # E: arg-type "str"
UserMessage("hi", role=MsgRole.USER)  # E: call-arg
UserMessage(3)  # E: arg-type "int"
UserMessage(TextBlock)  # E: arg-type "type[TextBlock]"
AssistantMessage("hi", usage=ChatUsage)  # E: arg-type "type[ChatUsage]"
Msg("hi", role="USER")  # E: arg-type "str"
ToolResultMessage.of("call_1", "zoom", 42)  # E: arg-type "int"
ChatUsage(1, 2) + 3  # E: operator
msg.with_generate_reason("MODEL_STOP")  # E: arg-type "str"
msg.__replace__(nmae="bob")  # E: call-arg
msg.__replace__(name=3)  # E: arg-type "int"
msg.__replace__(usage=ChatUsage)  # E: arg-type "type[ChatUsage]"
msg.__replace__(role=MsgRole.ASSISTANT)  # E: arg-type "MsgRole"
msg.get_content_blocks(str)  # E: type-var
match msg:
    case UserMessage(_):  # E: misc "__match_args__"
        pass  # E: unreachable
msg.get_content_blocks((TextBlock, str))  # E: type-var
msg.has_content_blocks((TextBlock, str))  # E: arg-type "tuple[type[TextBlock], type[str]]"
reason: GenerateReason = msg.get_generate_reason().value  # E: assignment "str"
msg.getTextContent()  # E: attr-defined

# a live reply takes text as str, blocks as blocks, a reason as the enum, and keeps its events
live = ReplyEmitter()
live.text(3)  # E: arg-type "int"
live.block("Hello")  # E: arg-type "str"
live.tool_call("c1", "search", {"q": "cats"})  # E: arg-type "dict[str, str]"
live.finish("MODEL_STOP")  # E: arg-type "str"
live.tool_result("c1", {"text": "found"})  # E: arg-type "dict[str, str]"
live.end_tool_result("c1", "success")  # E: arg-type "str"
live.events.append(live.text("x")[0])  # E: attr-defined

# each resumable client is read its own way, and the asyncio one sends with an httpx.AsyncClient only
sse.AsyncResumableEventStream("http://127.0.0.1:8000/reply", client=httpx.Client())  # E: arg-type "Client"
for _ in sse.AsyncResumableEventStream("http://127.0.0.1:8000/reply"):  # E: attr-defined
    pass


async def read_sync_client_in_async_for() -> None:
    async for _ in sse.ResumableEventStream("http://127.0.0.1:8000/reply"):  # E: attr-defined
        pass


# a server's body: encode_events takes what a for loop reads, aencode_events what an async for reads
sse.aencode_events([AgentEndEvent("r1")])  # E: arg-type "list[AgentEndEvent]"
sse.encode_events(sse.AsyncResumableEventStream("http://127.0.0.1:8000/reply"))  # E: arg-type "AsyncResumableEventStream"
sse.EventLog().add(AgentEndEvent("r1"))  # E: arg-type "AgentEndEvent"


# the schema of a class with a wire format only
json_schema(int)  # E: arg-type "type[int]"
