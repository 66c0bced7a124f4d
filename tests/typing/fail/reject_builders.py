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

AssistantMessage.builder().name(3)  # E: arg-type "int"
AssistantMessage.builder().metadata([("k", 1)])  # E: arg-type "list[tuple[str, int]]"
AssistantMessage.builder().usage({"inputTokens": 1})  # E: arg-type "dict[str, int]"
AssistantMessage.builder().generate_reason("TOOL_CALLS")  # E: arg-type "str"
AssistantMessage.builder().text_content(TextBlock("x"))  # E: arg-type "TextBlock"
ToolResultMessage.builder().result(TextBlock("x"))  # E: call-overload "TextBlock"
ToolResultMessage.builder().results(ToolUseBlock("c", "n"))  # E: arg-type "ToolUseBlock"
TextBlock.builder().text(3)  # E: arg-type "int"
DataBlock.builder().source("https://example.com/cat.png")  # E: arg-type "str"
ToolUseBlock.builder().state("pending")  # E: arg-type "str"
ChatUsage.builder().time("1.5")  # E: arg-type "str"
URLSource.builder().mime_type(b"image/png")  # E: arg-type "bytes"
TextBlock.builder().txt("typo")  # E: attr-defined
user: UserMessage = AssistantMessage.builder().build()  # E: assignment "AssistantMessage"
reason: GenerateReason = SystemMessage.builder()  # E: assignment "RoleMessageBuilder[SystemMessage, TextBlock]"


# role() of a role-pinned builder returns NoReturn, so each call sits last in its own function.
def user_builder_cannot_change_role() -> None:
    UserMessage.builder().role(MsgRole.ASSISTANT)  # E: arg-type "MsgRole"


def tool_builder_cannot_change_role() -> None:
    ToolResultMessage.builder().role(MsgRole.TOOL)  # E: arg-type "MsgRole"


def builder_for_a_role_known_at_run_time(role: MsgRole) -> None:
    # Which role is unknown here, but whatever it is, its content is blocks or strings.
    Msg.builder_for_role(role).content(3)  # E: arg-type "int"
