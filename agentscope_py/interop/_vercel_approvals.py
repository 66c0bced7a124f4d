"""AI SDK 6's tool approval parts: ``tool-approval-request`` and ``tool-approval-response``.

A tool that needs approval is called as any other; the assistant message adds a
``tool-approval-request`` part naming the call, and the user's answer comes back
as a ``tool-approval-response`` part in a tool message.  Neither is a block of
ours: a request makes its call ``ToolCallState.ASKING`` (what AgentScope calls a
call waiting for the user), and both parts are carried whole, by position, so
that they are written back as they came.  A call made ``ASKING`` in Python gets a
request of its own when written, with the call's id as the approval's.

AI SDK 5 has no approvals, and refuses a prompt holding either part: written for
it (``ai_sdk=5``), each goes through the caller's policy (:func:`refused_by_ai_5`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .._blocks import ContentBlock, ToolUseBlock
from .._enums import MsgRole, ToolCallState
from .._frozen import thawed
from .._reader import at, item, req, req_bool, req_str
from .._shown import elided, shown
from ..errors import DecodeError, UnsupportedContentError
from ._carry import position as carried_position
from ._common import Conversion, ConversionNote

__all__ = ["ApprovalParts", "Unheld", "read_approvals", "refused_by_ai_5"]

_REQUEST, _RESPONSE = "tool-approval-request", "tool-approval-response"
_PART_OF_ROLE = {MsgRole.ASSISTANT: _REQUEST, MsgRole.TOOL: _RESPONSE}
#: Applies the policy to an approval part the ``ai`` version cannot hold, given the index of the
#: block it stands by in the message written (its call's, for a request).
Unheld = Callable[[Mapping[str, Any], int], None]


def read_approvals(
    role: MsgRole, blocks: list[ContentBlock], whole: Mapping[str, Any], path: str, known: list[str]
) -> dict[str, Any]:
    """Check the parts ``read_parts`` found no block for (``whole``, by content index), which must be
    the approval parts of ``role``; mark the calls the requests name ``ASKING`` (in ``blocks``);
    return the parts to carry.  ``known``: the part types ``role`` reads into blocks, for the error."""
    wanted = _PART_OF_ROLE.get(role)
    positions = sorted(int(key) for key in whole)
    # The content index of each block: the parts kept whole are no blocks.
    block_positions = [i for i in range(len(blocks) + len(positions)) if str(i) not in whole]
    as_written = True  # every request is one writing its call would add: then none is carried
    calls_by_id: dict[str | None, list[int]] = {}
    for i, block in enumerate(blocks):
        if isinstance(block, ToolUseBlock):
            calls_by_id.setdefault(block.id, []).append(i)
    for position in positions:
        part = whole[str(position)]
        part_path = item(path, position)
        if part["type"] != wanted:
            expected = ", ".join([*known, *([wanted] if wanted else [])])
            raise DecodeError(f"unknown part type {shown(part['type'])}; expected one of {expected}", at(part_path, "type"))
        req_str(req(part, "approvalId", part_path), at(part_path, "approvalId"))
        if role is MsgRole.TOOL:
            req_bool(req(part, "approved", part_path), at(part_path, "approved"))
            continue
        call_id = req_str(req(part, "toolCallId", part_path), at(part_path, "toolCallId"))
        calls = calls_by_id.get(call_id)
        if not calls:
            raise DecodeError(f"no tool-call {elided(call_id)} in this message to ask approval for", at(part_path, "toolCallId"))
        # The call it follows most closely (ids may repeat), else the first.
        before = bisect_left(calls, position, key=block_positions.__getitem__)
        index = calls[before - 1] if before else calls[0]
        call = blocks[index]
        assert isinstance(call, ToolUseBlock)
        blocks[index] = call.with_state(ToolCallState.ASKING)
        as_written = as_written and part == _default_request(call_id) and position == block_positions[index] + 1
    return {} if role is MsgRole.ASSISTANT and as_written else dict(whole)


def refused_by_ai_5(conversion: Conversion, message_index: int) -> Unheld:
    """The policy for approval parts written for AI SDK 5: raise, naming the part and its place, or
    drop it with a note; for ``"text"`` too, as a text of a request would say nothing its call does
    not, and a tool message holds no text."""

    def refuse(part: Mapping[str, Any], block_index: int) -> None:
        kind = str(part.get("type"))
        where = f"messages[{message_index}].content[{block_index}]"
        if conversion.policy == "raise":
            named = (
                f"call {elided(str(part.get('toolCallId')))}"
                if kind == _REQUEST
                else f"approval {elided(str(part.get('approvalId')))}"
            )
            raise UnsupportedContentError(
                f"{conversion.target} 5 cannot hold a {kind} part ({where}, for {named}): ai 5 has no tool "
                "approvals and refuses the whole prompt; pass on_unsupported='drop' or 'text' to leave it out "
                "(the call stays), or ai_sdk=6 or 7"
            )
        conversion.notes.append(ConversionNote(message_index, block_index, kind, "dropped", f"{conversion.target} 5"))

    return refuse


class ApprovalParts:
    """Writes the approval parts of one message's parts list, as its parts are written: the carried
    ones back at their places, and a request after each ``ASKING`` call no carried one names.
    Placed as the list grows, so that the positions of other carried fields still count them.
    ``unheld``: for a version with no approvals, the policy each part goes through instead."""

    def __init__(
        self,
        carried_parts: object,
        role: MsgRole,
        blocks: Iterable[tuple[int, ContentBlock]],
        unheld: Unheld | None = None,
    ) -> None:
        # Only the parts this message's role holds, as read: anything else in the metadata is not ours.
        # A request goes only with its call: one whose call was taken out would name no call.
        wanted = _PART_OF_ROLE.get(role)
        self._calls: dict[str | None, int] = {}
        for index, block in blocks:
            if isinstance(block, ToolUseBlock):
                self._calls.setdefault(block.id, index)
        calls = self._calls
        self._pending = (
            {
                index: value
                for index, value in ((carried_position(key), value) for key, value in carried_parts.items())
                if index is not None
                and isinstance(value, Mapping)
                and value.get("type") == wanted
                and (wanted != _REQUEST or value.get("toolCallId") in calls)
            }
            if isinstance(carried_parts, Mapping)
            else {}
        )
        self._asked = {part.get("toolCallId") for part in self._pending.values()}
        self._unheld = unheld
        # The parts left out (unheld): they keep their places, so the carried ones after them still
        # go where they were, as a list holding them would have them.
        self._skipped = 0

    def position(self, parts: list[dict[str, Any]]) -> int:
        """The index in the content read of the part written next (approval parts left out count)."""
        return len(parts) + self._skipped

    def place(self, parts: list[dict[str, Any]], block_index: int) -> None:
        """Add the carried parts whose place is the end of ``parts``, where block ``block_index`` goes."""
        while self.position(parts) in self._pending:
            self._add(parts, thawed(self._pending.pop(self.position(parts))), block_index)

    def after(self, parts: list[dict[str, Any]], block: ContentBlock, block_index: int) -> None:
        """Add the request ``block`` needs, just written to ``parts``, if it is a call that waits for one
        (and went as a call: not as the text a policy made of it outside an assistant message)."""
        if (
            isinstance(block, ToolUseBlock)
            and block.state is ToolCallState.ASKING
            and block.id not in self._asked
            and parts[-1].get("type") == "tool-call"
        ):
            self._add(parts, _default_request(block.id or ""), block_index)

    def finish(self, parts: list[dict[str, Any]], block_index: int) -> None:
        """Add the carried parts left (their places lie past the end, where ``block_index`` would go), in order."""
        self.place(parts, block_index)
        for index in sorted(self._pending):
            self._add(parts, thawed(self._pending.pop(index)), block_index)

    def _add(self, parts: list[dict[str, Any]], part: dict[str, Any], block_index: int) -> None:
        if self._unheld is None:
            parts.append(part)
            return
        self._skipped += 1
        # A request is named by its call's place; an answer by the place it stands at.
        if part["type"] == _REQUEST:
            block_index = self._calls.get(part.get("toolCallId"), block_index)
        self._unheld(part, block_index)


def _default_request(call_id: str) -> dict[str, Any]:
    return {"type": _REQUEST, "approvalId": call_id, "toolCallId": call_id}
