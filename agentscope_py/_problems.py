"""What a :class:`~agentscope_py.ConversationError` lists: the problems a provider API would refuse.

They live in the core, beside the error that carries them, so that the error's
annotations resolve at run time (``typing.get_type_hints``); the interop
package checks conversations for them and exports them as its own.
"""

from __future__ import annotations

import enum

import attrs

from ._shown import shown

__all__ = ["ConversationProblem", "ProblemKind"]


class ProblemKind(enum.Enum):
    """What is wrong with a conversation."""

    #: A tool call that no result answers right after it.
    UNANSWERED_TOOL_CALL = "unanswered_tool_call"
    #: A tool result that answers no call of the turn right before it.
    ORPHAN_TOOL_RESULT = "orphan_tool_result"
    #: A second result for a call that already has one.
    DUPLICATE_TOOL_RESULT = "duplicate_tool_result"
    #: A tool call whose id another call of its turn has: which result answers which cannot be told.
    DUPLICATE_TOOL_CALL_ID = "duplicate_tool_call_id"
    #: A system message after the first user, assistant or tool message.
    LATE_SYSTEM_MESSAGE = "late_system_message"
    #: An assistant message with nothing in it but (possibly) blank text.
    EMPTY_ASSISTANT_MESSAGE = "empty_assistant_message"
    #: A user or tool message with nothing in it but (possibly) blank text: Anthropic refuses the
    #: empty user turn it makes, OpenAI takes it.
    EMPTY_USER_MESSAGE = "empty_user_message"
    #: No message to send: an empty conversation, or for Anthropic, which takes the system messages
    #: apart, one of system messages only.  Its index is where the first message would go.
    NO_MESSAGES = "no_messages"


_DESCRIPTIONS = {
    ProblemKind.UNANSWERED_TOOL_CALL: "tool call {id} has no result right after it",
    ProblemKind.ORPHAN_TOOL_RESULT: "tool result {id} answers no tool call right before it",
    ProblemKind.DUPLICATE_TOOL_RESULT: "tool result {id} repeats a result already given for that call",
    ProblemKind.DUPLICATE_TOOL_CALL_ID: "tool call {id} has the id of another call of its turn",
    ProblemKind.LATE_SYSTEM_MESSAGE: "system message after the conversation has started",
    ProblemKind.EMPTY_ASSISTANT_MESSAGE: "assistant message with no content",
    ProblemKind.EMPTY_USER_MESSAGE: "user or tool message with no content",
    ProblemKind.NO_MESSAGES: "nothing to send: no user, assistant or tool message",
}


@attrs.frozen
class ConversationProblem:
    """One problem: its kind, where it is, and the tool call id it concerns (if any)."""

    kind: ProblemKind
    message_index: int
    block_index: int | None = None
    tool_call_id: str | None = None

    def __str__(self) -> str:
        # Nothing to send is no message's fault: its index is where the first would go, none there.
        where = "messages" if self.kind is ProblemKind.NO_MESSAGES else f"messages[{self.message_index}]"
        if self.block_index is not None:
            where += f".content[{self.block_index}]"
        return f"{where}: " + _DESCRIPTIONS[self.kind].format(id=shown(self.tool_call_id))
