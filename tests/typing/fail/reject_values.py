"""Immutability and wrong argument types mypy rejects.  Each marked line must fail with that code."""

from __future__ import annotations

from agentscope_py import (
    AssistantMessage,
    ChatUsage,
    DataBlock,
    GenerateReason,
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

sse.MAX_RETRY = 1000  # E: misc "Cannot assign to final name"

msg = UserMessage("hi", name="alice")
call = ToolUseBlock("call_1", "zoom", {"x": 1})
source = URLSource("https://example.com/cat.png")

# everything is frozen
msg.name = "bob"  # E: misc "is read-only"
msg.content = ()  # E: misc "is read-only"
msg.metadata["k"] = 1  # E: index
call.input["x"] = 2  # E: index
call.state = ToolCallState.FINISHED  # E: misc "is read-only"
TextBlock("x").text = "y"  # E: misc "is read-only"
ChatUsage().total_tokens = 3  # E: misc "is read-only"

# constructors check their argument types
TextBlock(3)  # E: arg-type
TextBlock(text=None)  # E: arg-type
DataBlock("https://example.com/cat.png")  # E: arg-type
ImageBlock(source, "1024")  # E: arg-type
ToolUseBlock("c", "n", [("x", 1)])  # E: arg-type
ToolUseBlock("c", "n", state="pending")  # E: arg-type
ToolResultBlock("c", "n", state=ToolCallState.FINISHED)  # E: arg-type
ToolResultBlock("c", "n", ["not a block"])  # E: list-item
UserMessage("hi", name=3)  # E: arg-type
UserMessage("hi", metadata=[("k", 1)])  # E: arg-type
UserMessage("hi", generate_reason="MODEL_STOP")  # E: arg-type
UserMessage("hi", role=MsgRole.USER)  # E: call-arg
UserMessage(3)  # E: arg-type
UserMessage(TextBlock)  # E: arg-type
AssistantMessage("hi", usage=ChatUsage)  # E: arg-type
Msg("hi", role="USER")  # E: arg-type
ToolResultMessage.of("call_1", "zoom", 42)  # E: arg-type
ChatUsage(1, 2) + 3  # E: operator
msg.with_generate_reason("MODEL_STOP")  # E: arg-type
msg.__replace__(nmae="bob")  # E: call-arg
msg.__replace__(name=3)  # E: arg-type
msg.__replace__(usage=ChatUsage)  # E: arg-type
msg.__replace__(role=MsgRole.ASSISTANT)  # E: arg-type
msg.get_content_blocks(str)  # E: type-var
match msg:
    case UserMessage(_):  # E: misc "__match_args__"
        pass  # E: unreachable
msg.get_content_blocks((TextBlock, str))  # E: type-var
msg.has_content_blocks((TextBlock, str))  # E: arg-type
reason: GenerateReason = msg.get_generate_reason().value  # E: assignment
msg.getTextContent()  # E: attr-defined
