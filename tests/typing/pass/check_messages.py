"""What mypy infers for messages: the role's block type flows into content, helpers and copies."""

from __future__ import annotations

from typing import Any

from typing_extensions import assert_type

from agentscope_py import (
    AssistantMessage,
    AudioBlock,
    ChatUsage,
    ContentBlock,
    DataBlock,
    GenerateReason,
    HintBlock,
    ImageBlock,
    Msg,
    MsgRole,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolResultMessage,
    ToolUseBlock,
    URLSource,
    UserMessage,
    VideoBlock,
)

UserContent = TextBlock | DataBlock | ImageBlock | AudioBlock | VideoBlock

system = SystemMessage("Be brief.")
user = UserMessage("What's in this image?", DataBlock(URLSource("https://example.com/cat.png")), name="alice")
assistant = AssistantMessage(
    ThinkingBlock("hm"), "It is a cat.", ToolUseBlock("call_1", "zoom", {"x": 1}), metadata={"_structured_output": {}}
)
tool = ToolResultMessage.of("call_1", "zoom", "done")
plain = Msg("hi", role=MsgRole.ASSISTANT)

# content is typed by the role
assert_type(system.content, tuple[TextBlock, ...])
assert_type(user.content, tuple[UserContent, ...])
assert_type(assistant.content, tuple[ContentBlock, ...])
assert_type(tool.content, tuple[ContentBlock, ...])
assert_type(plain.content, tuple[ContentBlock, ...])

# reading helpers
assert_type(assistant.get_content_blocks(ToolUseBlock), list[ToolUseBlock])
assert_type(user.get_content_blocks(DataBlock), list[DataBlock])
assert_type(assistant.get_first_content_block(TextBlock), TextBlock | None)
assert_type(system.get_first_content_block(), TextBlock | None)
assert_type(user.get_first_content_block(), UserContent | None)
assert_type(assistant.has_content_blocks(ToolUseBlock), bool)
# a tuple of classes, as isinstance takes: the union of two or three, the common base of more
assert_type(assistant.get_content_blocks((TextBlock, ToolUseBlock)), list[TextBlock | ToolUseBlock])
assert_type(assistant.get_content_blocks((TextBlock, DataBlock, HintBlock)), list[TextBlock | DataBlock | HintBlock])
assert_type(assistant.get_content_blocks((TextBlock, DataBlock, HintBlock, ToolUseBlock)), list[ContentBlock])
assert_type(assistant.get_first_content_block((TextBlock,)), TextBlock | None)
assert_type(assistant.get_first_content_block((TextBlock, DataBlock)), TextBlock | DataBlock | None)
assert_type(assistant.get_first_content_block((TextBlock, DataBlock, ThinkingBlock)), TextBlock | DataBlock | ThinkingBlock | None)
# what they find goes where the union may go: here into a user's message
UserMessage(assistant.get_content_blocks((TextBlock, DataBlock)))
assert_type(assistant.has_content_blocks((TextBlock, ToolUseBlock)), bool)
assert_type(assistant.get_text_content(), str)
assert_type(assistant.get_generate_reason(), GenerateReason)
assert_type(assistant.get_chat_usage(), ChatUsage | None)
assert_type(assistant.get_structured_data(), Any)

# fields
assert_type(user.id, str | None)
assert_type(user.role, MsgRole)  # a role class fixes it
assert_type(plain.role, MsgRole | None)
assert_type(user.usage, ChatUsage | None)

# copies keep the class
assert_type(system.with_generate_reason(GenerateReason.MODEL_STOP), SystemMessage)
assert_type(system.with_content([TextBlock("Be briefer.")]), SystemMessage)
assert_type(user.with_content([ImageBlock(URLSource("https://example.com/dog.png"))]), UserMessage)
assert_type(assistant.with_metadata({"k": 1}), AssistantMessage)
assert_type(tool.with_metadata(None), ToolResultMessage)
assert_type(plain.with_content([ToolResultBlock.text("x")]), Msg[ContentBlock])
assert_type(ToolResultMessage.of("call_1", "zoom", "done"), ToolResultMessage)
assert_type(system.with_content(["Be briefer."]), SystemMessage)  # strings are text, as in the constructor
assert_type(SystemMessage.builder().content("Be brief.", TextBlock("Really.")).build(), SystemMessage)
# copy.replace (Python 3.13) calls __replace__, whose keywords are typed like the constructor's
assert_type(system.__replace__(name="rules", content=["Be briefer."]), SystemMessage)
assert_type(user.__replace__(content=[ImageBlock(URLSource("https://example.com/dog.png"))]), UserMessage)
# only a plain Msg takes a role there: a role-pinned class has none to change
assert_type(Msg("note", role=MsgRole.USER).__replace__(role=MsgRole.SYSTEM), Msg[ContentBlock])


# every role-pinned message is a Msg
def count_words(msg: Msg) -> int:
    return len(msg.get_text_content().split())


def history(messages: list[Msg]) -> int:
    return sum(count_words(msg) for msg in messages)


assert_type(count_words(system), int)
assert_type(history([system, user, assistant, tool, plain]), int)

# A history written and read back as one JSON array, as Java writes a List<Msg>.
saved = Msg.to_json_list([system, user, assistant, tool, plain])
assert_type(saved, str)
assert_type(Msg.from_json_list(saved), list[Msg])
