"""What mypy infers for builders: each build() returns the class it builds."""

from __future__ import annotations

from typing_extensions import assert_type

from agentscope_py import (
    AssistantMessage,
    AudioBlock,
    Base64Source,
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
    ToolCallState,
    ToolResultBlock,
    ToolResultMessage,
    ToolResultState,
    ToolUseBlock,
    URLSource,
    UserMessage,
    VideoBlock,
)
from agentscope_py.builders import (
    MessageBuilder,
    MsgBuilder,
    RoleMessageBuilder,
    ToolResultMessageBuilder,
)

UserContent = TextBlock | DataBlock | ImageBlock | AudioBlock | VideoBlock
source = URLSource.builder().url("https://example.com/cat.png").mime_type("image/png").build()

# message builders
assert_type(UserMessage.builder().build(), UserMessage)
assert_type(SystemMessage.builder().text_content("Be brief.").build(), SystemMessage)
assert_type(AssistantMessage.builder().content(ToolUseBlock("c", "n")).build(), AssistantMessage)
assert_type(ToolResultMessage.builder().result("c", "n", "r").build(), ToolResultMessage)
assert_type(ToolResultMessage.builder().results(ToolResultBlock.text("r")).build(), ToolResultMessage)
assert_type(Msg.builder().role(MsgRole.TOOL).build(), Msg[ContentBlock])

assert_type(Msg.builder_for_role(MsgRole.USER).build(), UserMessage)
assert_type(Msg.builder_for_role(MsgRole.SYSTEM).build(), SystemMessage)
assert_type(Msg.builder_for_role(MsgRole.ASSISTANT).build(), AssistantMessage)
assert_type(Msg.builder_for_role(MsgRole.TOOL).build(), ToolResultMessage)
assert_type(Msg.builder_for_role(None).build(), Msg[ContentBlock])


def builder_for_any_role(role: MsgRole | None) -> Msg:
    builder = Msg.builder_for_role(role)
    assert_type(builder, MessageBuilder[Msg[ContentBlock], ContentBlock])
    return builder.text_content("hi").build()


def built_by_class(cls: type[Msg], role: MsgRole) -> Msg:
    # Seen as any message class, a role class's builder has role(): it takes the class's own role.
    return cls.builder().role(role).text_content("hi").build()


assert type(built_by_class(UserMessage, MsgRole.USER)) is UserMessage


# setters return the builder, so chains keep their type
assert_type(Msg.builder(), MsgBuilder)
assert_type(Msg.builder().name("n").role(None), MsgBuilder)
assert_type(UserMessage.builder().name("alice"), RoleMessageBuilder[UserMessage, UserContent])
assert_type(SystemMessage.builder().metadata({}), RoleMessageBuilder[SystemMessage, TextBlock])
assert_type(
    AssistantMessage.builder().generate_reason(GenerateReason.TOOL_CALLS),
    RoleMessageBuilder[AssistantMessage, ContentBlock],
)
assert_type(ToolResultMessage.builder().id("m1").result(ToolResultBlock.text("x")), ToolResultMessageBuilder)
assert_type(UserMessage.builder().content(TextBlock("a"), DataBlock(source)).usage(ChatUsage()).build(), UserMessage)



# A builder of a role class is a builder of Msg, for code that passes builders around.
def tagged(builder: MessageBuilder[Msg, ContentBlock]) -> Msg:
    return builder.metadata({"turn": 1}).build()


def said(builder: MessageBuilder[Msg, TextBlock]) -> Msg:
    return builder.text_content("hi").build()


assert_type(tagged(AssistantMessage.builder()), Msg)
assert_type(tagged(ToolResultMessage.builder()), Msg)
assert_type(said(SystemMessage.builder()), Msg)
assert isinstance(tagged(AssistantMessage.builder().text_content("hi")), AssistantMessage)

# block, source and usage builders
assert_type(source, URLSource)
assert_type(Base64Source.builder().media_type("image/png").data("AA==").build(), Base64Source)
assert_type(ChatUsage.builder().input_tokens(10).output_tokens(5).build(), ChatUsage)
assert_type(TextBlock.builder().text("hi").build(), TextBlock)
assert_type(ThinkingBlock.builder().thinking("hm").metadata(None).build(), ThinkingBlock)
assert_type(DataBlock.builder().source(source).name("cat.png").build(), DataBlock)
assert_type(ImageBlock.builder().source(source).max_pixels(1024).build(), ImageBlock)
assert_type(AudioBlock.builder().source(source).build(), AudioBlock)
assert_type(VideoBlock.builder().fps(2.0).build(), VideoBlock)
assert_type(HintBlock.builder().hint("be brief").build(), HintBlock)
assert_type(ToolUseBlock.builder().name("zoom").state(ToolCallState.ALLOWED).build(), ToolUseBlock)
assert_type(ToolResultBlock.builder().output(TextBlock("x")).state(ToolResultState.SUCCESS).build(), ToolResultBlock)

# block helpers
call = ToolUseBlock("call_1", "zoom", None)
assert_type(call.with_state(ToolCallState.FINISHED), ToolUseBlock)
assert_type(ToolResultBlock.text("x"), ToolResultBlock)
assert_type(ToolResultBlock.error("boom"), ToolResultBlock)
assert_type(ToolResultBlock.error("call_1", "boom"), ToolResultBlock)
assert_type(ToolResultBlock.suspended(call), ToolResultBlock)
assert_type(ToolResultBlock.suspended(call).with_id_and_name(None, None).is_suspended, bool)
assert_type(ChatUsage(1, 2) + ChatUsage(3, 4), ChatUsage)
assert_type(ChatUsage().total_tokens, int)
