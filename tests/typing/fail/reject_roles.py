"""Role rules mypy enforces where the code is written.  Each marked line must fail with that code."""

from __future__ import annotations

from agentscope_py import (
    AudioBlock,
    DataBlock,
    HintBlock,
    ImageBlock,
    Msg,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    URLSource,
    UserMessage,
)

source = URLSource("https://example.com/cat.png")
call = ToolUseBlock("call_1", "zoom")

# constructors
SystemMessage(ToolUseBlock("call_1", "zoom"))  # E: arg-type "ToolUseBlock"
SystemMessage("ok", DataBlock(source))  # E: arg-type "DataBlock"
SystemMessage([TextBlock("ok"), AudioBlock(source)])  # E: list-item "AudioBlock"
UserMessage(ThinkingBlock("hm"))  # E: arg-type "ThinkingBlock"
UserMessage(call)  # E: arg-type "ToolUseBlock"
UserMessage(HintBlock("h1", "hint"))  # E: arg-type "HintBlock"
UserMessage(ToolResultBlock.text("x"))  # E: arg-type "ToolResultBlock"

# builders
SystemMessage.builder().content(DataBlock(source))  # E: arg-type "DataBlock"
SystemMessage.builder().content([TextBlock("ok"), ImageBlock(source)])  # E: list-item "ImageBlock"
UserMessage.builder().content(ToolResultBlock("call_1", "zoom"))  # E: arg-type "ToolResultBlock"
UserMessage.builder().content(ThinkingBlock("hm"))  # E: arg-type "ThinkingBlock"

# copies
SystemMessage("ok").with_content([ImageBlock(source)])  # E: list-item "ImageBlock"
UserMessage("ok").with_content([call])  # E: list-item "ToolUseBlock"
UserMessage("ok").with_content((call,))  # E: arg-type "tuple[ToolUseBlock]"
SystemMessage("ok").__replace__(content=[call])  # E: list-item "ToolUseBlock"
UserMessage("ok").__replace__(content=[ThinkingBlock("hm")])  # E: list-item "ThinkingBlock"


# what a message holds is typed by its role
def tool_calls_of(msg: Msg) -> list[ToolUseBlock]:
    calls: list[ToolUseBlock] = msg.get_content_blocks(TextBlock)  # E: arg-type "type[TextBlock]"
    return calls


texts: tuple[TextBlock, ...] = UserMessage("x").content  # E: assignment "tuple[TextBlock | DataBlock | ImageBlock | AudioBlock | VideoBlock, ...]"
system: SystemMessage = UserMessage("x")  # E: assignment "UserMessage"
system_again: SystemMessage = Msg.builder().build()  # E: assignment "Msg[ContentBlock]"
# a filter of two classes is typed as their union, which a system message refuses
SystemMessage(UserMessage("x").get_content_blocks((TextBlock, DataBlock)))  # E: arg-type "list[TextBlock | DataBlock]"
