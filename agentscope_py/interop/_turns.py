"""A conversation seen as the provider APIs see it: a sequence of turns.

AgentScope lets a tool result sit inside an assistant message (after the call)
or in a TOOL message next to other blocks.  Provider APIs want calls and
results in separate turns: OpenAI a ``tool`` message per result, Anthropic
``tool_result`` blocks in the next user turn.  :func:`split_turns` cuts every
message into runs of blocks that belong to one kind of turn; the converters,
:func:`~agentscope_py.interop.validate_conversation` and
:func:`~agentscope_py.interop.repair_conversation` all read the same cut, so
they agree on what pairs with what.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from typing import Literal

import attrs

from .._blocks import ContentBlock, TextBlock, ToolResultBlock
from .._enums import MsgRole
from .._messages import Msg

__all__ = ["Turn", "TurnKind", "blank_after_results", "holding_results", "says_nothing", "split_turns"]

TurnKind = Literal["system", "user", "assistant", "tool"]

# The kind of turn a message's non-result blocks form.  A TOOL message's other
# blocks (text beside the results, say) are read as user content, which is where
# Anthropic puts them and what OpenAI can hold.
_KIND_OF_ROLE: dict[MsgRole, TurnKind] = {
    MsgRole.SYSTEM: "system",
    MsgRole.USER: "user",
    MsgRole.ASSISTANT: "assistant",
    MsgRole.TOOL: "user",
}


@attrs.frozen
class Turn:
    """A run of consecutive blocks of one message that belong to one kind of turn."""

    kind: TurnKind
    message_index: int
    message: Msg
    #: ``(index in message.content, block)`` pairs, in order.
    blocks: tuple[tuple[int, ContentBlock], ...]
    #: Whether the run is of the message's own kind (not results split out of it), so that
    #: the message-level fields a converter keeps in metadata belong to it.
    own: bool


def _kind(role: MsgRole, block: ContentBlock) -> TurnKind:
    if isinstance(block, ToolResultBlock) and role in (MsgRole.ASSISTANT, MsgRole.TOOL):
        return "tool"
    return _KIND_OF_ROLE[role]


def says_nothing(blocks: Iterable[ContentBlock]) -> bool:
    """Whether ``blocks`` hold nothing but blank text (or nothing): what the APIs refuse as empty."""
    return all(isinstance(block, TextBlock) and not block.text.strip() for block in blocks)


def holding_results(turns: Iterable[Turn]) -> set[int]:
    """The indices of the messages whose tool results ``turns`` split out of them."""
    return {turn.message_index for turn in turns if turn.kind == "tool"}


def blank_after_results(turn: Turn, split: Container[int]) -> bool:
    """Whether ``turn`` is blank text after the tool results of its message (one of ``split``, what
    :func:`holding_results` gives).  Written alone it would be an empty assistant message, which the
    APIs refuse: a writer leaves it out unless it carries something else (an OpenAI audio id)."""
    return (
        turn.kind == "assistant"
        and bool(turn.blocks)
        and turn.message_index in split
        and says_nothing(block for _, block in turn.blocks)
    )


def split_turns(messages: Iterable[Msg]) -> list[Turn]:
    """Cut ``messages`` into turns, in order.

    Blank text before or between a message's tool results is no turn: written, it would be an
    empty message between a call and its result, which both APIs refuse, and it says nothing (the
    writers leave it out, and the check and the repair must see the conversation they write).
    After the results it is none either in a TOOL message; in an assistant message it stays a
    turn, which a writer may send for what the message carries (an OpenAI audio answer's id)."""
    turns: list[Turn] = []
    for message_index, message in enumerate(messages):
        role = message.role
        assert role is not None, "checked by as_message_list"
        own_kind = _KIND_OF_ROLE[role]
        runs: list[Turn] = []
        run: list[tuple[int, ContentBlock]] = []
        run_kind = own_kind
        for index, block in enumerate(message.content):
            kind = _kind(role, block)
            if run and kind != run_kind:
                runs.append(Turn(run_kind, message_index, message, tuple(run), run_kind == own_kind))
                run = []
            run_kind = kind
            run.append((index, block))
        if run or (not message.content and role is not MsgRole.TOOL):
            # An empty message still is a turn: it converts to an empty message, not to nothing.  An
            # empty TOOL message answers nothing and says nothing: no turn (the AI SDK writes one for
            # an approval answer alone, between a call and its result).
            runs.append(Turn(run_kind, message_index, message, tuple(run), run_kind == own_kind))
        if len(runs) > 1 and any(turn.kind == "tool" for turn in runs):
            last = runs[-1] if role is MsgRole.ASSISTANT else None
            runs = [
                turn
                for turn in runs
                if turn.kind == "tool" or turn is last or not says_nothing(block for _, block in turn.blocks)
            ]
        turns += runs
    return turns
