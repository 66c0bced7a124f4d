"""Builder misuse mypy rejects.  Each marked line must fail with that code."""

from __future__ import annotations

from agentscope_py import (
    AssistantMessage,
    ChatUsage,
    DataBlock,
    GenerateReason,
    Msg,
    MsgRole,
    SystemMessage,
    TextBlock,
    ToolResultMessage,
    ToolUseBlock,
    URLSource,
    UserMessage,
)

AssistantMessage.builder().name(3)  # E: arg-type
AssistantMessage.builder().metadata([("k", 1)])  # E: arg-type
AssistantMessage.builder().usage({"inputTokens": 1})  # E: arg-type
AssistantMessage.builder().generate_reason("TOOL_CALLS")  # E: arg-type
AssistantMessage.builder().text_content(TextBlock("x"))  # E: arg-type
ToolResultMessage.builder().result(TextBlock("x"))  # E: call-overload
ToolResultMessage.builder().results(ToolUseBlock("c", "n"))  # E: arg-type
TextBlock.builder().text(3)  # E: arg-type
DataBlock.builder().source("https://example.com/cat.png")  # E: arg-type
ToolUseBlock.builder().state("pending")  # E: arg-type
ChatUsage.builder().time("1.5")  # E: arg-type
URLSource.builder().mime_type(b"image/png")  # E: arg-type
TextBlock.builder().txt("typo")  # E: attr-defined
user: UserMessage = AssistantMessage.builder().build()  # E: assignment
reason: GenerateReason = SystemMessage.builder()  # E: assignment


# role() of a role-pinned builder returns NoReturn, so each call sits last in its own function.
def user_builder_cannot_change_role() -> None:
    UserMessage.builder().role(MsgRole.ASSISTANT)  # E: arg-type


def tool_builder_cannot_change_role() -> None:
    ToolResultMessage.builder().role(MsgRole.TOOL)  # E: arg-type


def builder_for_a_role_known_at_run_time(role: MsgRole) -> None:
    # Which role is unknown here, but whatever it is, its content is blocks or strings.
    Msg.builder_for_role(role).content(3)  # E: arg-type
