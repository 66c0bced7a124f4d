"""Anthropic Messages: the ``system`` and ``messages`` arguments of ``client.messages.create``.

``to_anthropic(messages)`` gives ``{"system": ..., "messages": [...]}`` (``system``
only when there is one), written here; ``from_anthropic(payload)`` reads one back
(``_anthropic_read``).  The mapping, what travels in ``metadata["anthropic"]`` and what raises
are in ``docs/interop/anthropic.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._blocks import (
    ContentBlock,
    DataBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from .._checks import check_bool
from .._messages import (
    Msg,
)
from ._anthropic_media import media_hint, media_part
from ._anthropic_read import FMT, READ_FIELDS, from_anthropic
from ._anthropic_whole_blocks import KeptBlocks
from ._call_arguments import tool_arguments
from ._carry import Carried, MessageCarried, write_content, write_kept
from ._common import (
    ERROR_RESULT,
    ERROR_STATES,
    NOT_AN_OBJECT,
    Conversion,
    ConvertedDict,
    OnUnsupported,
    as_message_list,
    in_message,
)
from ._conversation import ConversationProblem, ProblemKind, check_conversation
from ._tool_ids import ANTHROPIC_TOOL_IDS, tool_ids
from ._turns import Turn, blank_after_results, holding_results, says_nothing, split_turns

__all__ = ["from_anthropic", "to_anthropic"]

_TARGET = "Anthropic Messages"


def to_anthropic(
    messages: Iterable[Msg], *, on_unsupported: OnUnsupported = "raise", validate: bool = True
) -> ConvertedDict:
    """``{"system": ..., "messages": [...]}`` for ``messages``.

    Leading system messages become ``system``, later ones system messages at their
    place; tool results become ``tool_result`` blocks of the next user turn;
    consecutive turns of one role are merged, as the API requires.  The blocks a
    message keeps whole (a server tool's, read by ``from_anthropic``) go back where
    they stood among its blocks.  A block
    Anthropic cannot hold (audio, video, a HintBlock, a ThinkingBlock without a
    signature, an image or document in an assistant turn) raises
    :class:`UnsupportedContentError` unless ``on_unsupported`` says ``"drop"`` or
    ``"text"``; the result's ``notes`` list each such block.  With
    ``validate`` a conversation the API would reject with a 400 raises
    :class:`~agentscope_py.ConversationError`; ``repair_conversation`` fixes it.
    """
    validate = check_bool(validate, "to_anthropic validate")
    conversion = Conversion(_TARGET, on_unsupported)
    messages = as_message_list(messages)
    turns = split_turns(messages)
    writer = _Writer(conversion, tool_ids(turns, ANTHROPIC_TOOL_IDS), turns)
    system: list[Turn] = []
    groups: list[tuple[str, list[Turn]]] = []
    skipped: set[int] = set()
    split = holding_results(turns)
    left_out: set[tuple[int, int]] = set()
    for turn in turns:
        if turn.kind == "system" and groups and says_nothing(block for _, block in turn.blocks):
            skipped.add(turn.message_index)
            continue  # a late system message without instructions: no empty user turn to make of it
        if blank_after_results(turn, split) and not _keeps_blocks(turn.message):
            left_out.update((turn.message_index, index) for index, _ in turn.blocks)
            continue  # it would be an empty assistant turn, which the API refuses
        if turn.kind == "system" and not groups:
            system.append(turn)
            continue
        role: str = "user" if turn.kind == "tool" else turn.kind  # a system message after the first turn is one
        if groups and groups[-1][0] == role and role != "system":  # system messages stay as they were given
            groups[-1][1].append(turn)
        else:
            groups.append((role, [turn]))
    out: dict[str, Any] = {}
    if system:
        # Optional: system messages that say nothing (blank text) leave it out, as the page promises.
        writer.content(out, system, optional=True)
        if "content" in out:
            out["system"] = out.pop("content")
    out["messages"] = []
    empty: list[ConversationProblem] = []
    for role, group in groups:
        message: dict[str, Any] = {"role": role}
        writer.content(message, group)
        out["messages"].append(message)
        if not message["content"]:  # a turn of messages the policy emptied
            kind = ProblemKind.EMPTY_USER_MESSAGE if role == "user" else ProblemKind.EMPTY_ASSISTANT_MESSAGE
            empty.append(ConversationProblem(kind, group[0].message_index))
    if out["messages"] and out["messages"][-1]["role"] == "assistant":
        _without_trailing_whitespace(out["messages"][-1])
    if not out["messages"]:  # the API wants one ("at least one message is required"); system is apart
        empty.append(ConversationProblem(ProblemKind.NO_MESSAGES, len(messages)))
    if validate:
        # What is written: a turn the policy emptied is refused like any empty turn (found above); a
        # message it emptied within a turn of others is absent, as is a late system message said nothing.
        emptied = {index for index, _ in writer.replaced} - writer.wrote
        check_conversation(
            messages,
            _TARGET,
            writer.replaced,
            found=empty,
            omitted=emptied | skipped,
            holding=writer.holding,
            merged_assistant_turns=True,  # as the groups above write them
            left_out=left_out,
        )
    return ConvertedDict(out, writer.conversion.notes)


def _without_trailing_whitespace(message: dict[str, Any]) -> None:
    """A last assistant turn is one the model goes on from, whose content the API refuses to see end
    in whitespace ("final assistant content cannot end with trailing whitespace"): an answer cut at
    ``max_tokens``, sent back to be continued, often does.  Its last text goes without it."""
    content = message["content"]
    if isinstance(content, str):
        message["content"] = content.rstrip()
    elif content and content[-1].get("type") == "text" and isinstance(content[-1].get("text"), str):
        content[-1] = {**content[-1], "text": content[-1]["text"].rstrip()}


def _keeps_blocks(message: Msg) -> bool:
    """Whether ``message`` keeps whole blocks, which its last turn of its own kind writes."""
    kept = message.metadata.get(FMT)
    return isinstance(kept, Mapping) and bool(kept.get("blocks"))


class _Writer:
    def __init__(self, conversion: Conversion, tool_ids: Mapping[tuple[int, int], str], turns: Sequence[Turn]) -> None:
        self.conversion = conversion
        self.tool_ids = tool_ids  # (message index, content index) -> the id written for a call or result, where not its own
        self.replaced: dict[tuple[int, int], str | None] = {}
        self.wrote: set[int] = set()  # the messages something was written for
        self.holding: set[int] = set()  # those with whole blocks written: not empty, whatever blocks they hold
        self.carried = MessageCarried(FMT)
        self.kept = KeptBlocks(FMT, turns, READ_FIELDS)

    def content(self, out: dict[str, Any], turns: list[Turn], *, optional: bool = False) -> None:
        """Write the blocks of ``turns`` (one target message, or ``system``) as ``out["content"]``;
        none at all when they write nothing and the field is ``optional``."""
        parts: list[dict[str, Any]] = []
        for turn in turns:
            own = self.carried.of(turn)
            for index, block in turn.blocks:
                self._kept(parts, turn, index)
                if isinstance(block, TextBlock) and not block.text.strip():
                    continue  # blank text says nothing, and the API refuses it ("must contain non-whitespace text")
                part = self._part(turn, index, block, own)
                written = self._or_fallback(part, turn, index, block)
                if part is None:
                    self.replaced[turn.message_index, index] = written[0]["text"] if written else None
                if written:
                    self.wrote.add(turn.message_index)
                parts.extend(written)
            self._kept(parts, turn, None)
        only = turns[0] if len(turns) == 1 else None
        whole = only is not None and only.own and len(only.blocks) == len(only.message.content)
        form = self.carried.of(only).form if whole and only is not None else None
        write_content(out, parts, form, optional=optional)

    def _kept(self, parts: list[dict[str, Any]], turn: Turn, index: int | None) -> None:
        """Write the whole blocks kept to go before content block ``index`` of ``turn``'s message (see
        ``KeptBlocks.before``)."""
        kept = self.kept.before(turn, index)
        if kept:
            parts.extend(kept)
            self.wrote.add(turn.message_index)
            self.holding.add(turn.message_index)

    def _or_fallback(
        self,
        part: dict[str, Any] | None,
        turn: Turn,
        index: int,
        block: ContentBlock,
        output_index: int | None = None,
        why: str = "",
    ) -> list[dict[str, Any]]:
        """``[part]``, or what the policy makes of a block the target cannot hold (``why``: what makes
        a block of a result's output unfit)."""
        if part is not None:
            return [part]
        if output_index is None:
            why = _unfit(turn.kind, block)
        # Media its kind does not rule out, refused for its data or its URL: say which.
        hint = media_hint(block) if not why and isinstance(block, (DataBlock, ImageBlock)) else ""
        text = self.conversion.refuse(turn.message_index, index, block, output_index, why, hint)
        return [] if text is None else [{"type": "text", "text": text}]

    def _part(self, turn: Turn, index: int, block: ContentBlock, own: Carried) -> dict[str, Any] | None:
        if isinstance(block, ToolResultBlock) and turn.kind == "tool":
            return self._tool_result(turn, index, block)
        if isinstance(block, ToolUseBlock) and turn.kind == "assistant":
            return _tool_use(block, self.tool_ids.get((turn.message_index, index), block.id or ""))
        if isinstance(block, ThinkingBlock) and turn.kind == "assistant":
            return _thinking(block)
        if isinstance(block, (DataBlock, ImageBlock)) and turn.kind != "user":
            return None  # the API takes images and documents from the user only
        return _content_part(block, own.part(index))

    def _tool_result(self, turn: Turn, index: int, result: ToolResultBlock) -> dict[str, Any]:
        own = Carried(result.metadata, FMT, result.output)
        is_error = result.state in ERROR_STATES
        parts: list[dict[str, Any]] = []
        for inner_index, block in enumerate(result.output):
            if isinstance(block, TextBlock) and not block.text.strip():
                continue  # as in a turn: the API refuses blank text ("must contain non-whitespace text")
            # The API refuses anything but text in an error ("all content must be type 'text' if 'is_error' is true").
            if is_error and not isinstance(block, TextBlock):
                parts.extend(self._or_fallback(None, turn, index, block, inner_index, ERROR_RESULT))
            else:
                parts.extend(self._or_fallback(_content_part(block, own.part(inner_index)), turn, index, block, inner_index))
        written_id = self.tool_ids.get((turn.message_index, index), result.id or "")
        out: dict[str, Any] = {"type": "tool_result", "tool_use_id": written_id}
        write_kept(out, own.fields)
        if is_error:
            out["is_error"] = True
        write_content(out, parts, own.form, optional=True)
        return out


def _unfit(kind: str, block: ContentBlock) -> str:
    """What makes ``block``, which the API holds elsewhere or otherwise, unfit for a ``kind`` turn."""
    if isinstance(block, ThinkingBlock) and kind == "assistant":
        if _redacted_data(block) is not None:
            return " with text, read from redacted_thinking (its encrypted data goes back only with empty text)"
        return " without a signature"  # the API takes back only the thinking it signed
    if isinstance(block, ToolUseBlock) and kind == "assistant":
        return NOT_AN_OBJECT
    if isinstance(block, (ThinkingBlock, ToolUseBlock)) or (kind != "user" and _content_part(block, {}) is not None):
        return in_message(kind)
    return ""


def _tool_use(block: ToolUseBlock, written_id: str) -> dict[str, Any] | None:
    arguments = tool_arguments(block)
    if arguments is None:
        return None  # raw arguments that are not a JSON object: Anthropic takes an object only
    out = {"type": "tool_use", "id": written_id, "name": block.name or "", "input": arguments}
    return write_kept(out, Carried(block.metadata, FMT).fields)


def _redacted_data(block: ThinkingBlock) -> str | None:
    """The encrypted data of a block read from ``redacted_thinking``; ``None`` for any other."""
    fields = Carried(block.metadata, FMT).fields
    data = fields.get("data")
    return data if fields.get("type") == "redacted_thinking" and isinstance(data, str) else None


def _thinking(block: ThinkingBlock) -> dict[str, Any] | None:
    fields = Carried(block.metadata, FMT).fields
    fields.pop("type", None)  # ours to write
    data = _redacted_data(block)
    if data is not None:
        if block.thinking:
            # Text given since: the opaque data cannot say it, and unsigned thinking is refused.
            return None
        del fields["data"]
        return write_kept({"type": "redacted_thinking", "data": data}, fields)
    signature = fields.pop("signature", None)
    if isinstance(signature, str):
        return write_kept({"type": "thinking", "thinking": block.thinking, "signature": signature}, fields)
    return None  # without Anthropic's signature the API refuses the block


def _content_part(block: ContentBlock, extras: dict[str, Any]) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return write_kept({"type": "text", "text": block.text}, extras)
    if isinstance(block, (DataBlock, ImageBlock)):
        return media_part(block.source, block.name if isinstance(block, DataBlock) else None, extras)
    return None
