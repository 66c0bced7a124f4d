"""OpenAI Chat Completions: the ``messages`` list of ``client.chat.completions.create``.

``to_openai(messages)`` gives that list (written here); ``from_openai(payload)`` reads one back
(``_openai_read``).
The mapping, what travels in ``metadata["openai"]`` and what raises are in
``docs/interop/openai.md``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from .._blocks import (
    ContentBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from .._checks import check_bool
from .._messages import Msg
from ._call_arguments import arguments_text
from ._carry import RESPONSE_KEY, Carried, ContentForm, MessageCarried, merged, write_content, write_kept
from ._common import (
    Conversion,
    Converted,
    OnUnsupported,
    as_message_list,
    in_message,
    media_type_hint,
    url_hint,
)
from ._conversation import ConversationProblem, ProblemKind, check_conversation
from ._openai_media import MEDIA_BLOCKS, media_part
from ._openai_read import ANSWER_FIELDS, FMT, answer_transcript, from_openai
from ._tool_ids import OPENAI_TOOL_IDS, tool_ids
from ._turns import Turn, blank_after_results, holding_results, split_turns

__all__ = ["from_openai", "to_openai"]

_TARGET = "OpenAI Chat Completions"
# Carried assistant fields that say something without content: the API takes an assistant message
# with one of them and nothing else (an audio answer named by its id, a legacy function call).
_SAYING_FIELDS = frozenset({"audio", "function_call"})


def to_openai(
    messages: Iterable[Msg], *, on_unsupported: OnUnsupported = "raise", validate: bool = True
) -> Converted:
    """The Chat Completions ``messages`` list for ``messages``.

    A block OpenAI cannot hold (a ThinkingBlock, a HintBlock, media in an assistant
    turn, video) raises :class:`UnsupportedContentError` unless ``on_unsupported``
    says ``"drop"`` or ``"text"``; the result's ``notes`` list each such block.
    With ``validate`` (the default) a conversation the API would reject with a 400
    (a tool call without its result, an orphan result, an assistant message with no
    content at all, no calls and no audio, no message at all) raises
    :class:`~agentscope_py.ConversationError`; ``repair_conversation`` fixes what it can.
    """
    validate = check_bool(validate, "to_openai validate")
    conversion = Conversion(_TARGET, on_unsupported)
    messages = as_message_list(messages)
    turns = split_turns(messages)
    writer = _Writer(conversion, holding_results(turns), tool_ids(turns, OPENAI_TOOL_IDS))
    out: list[dict[str, Any]] = []
    written: set[int] = set()
    holding: set[int] = set()
    for turn in turns:
        written_turn = writer.turn(turn)
        if written_turn:
            written.add(turn.message_index)
        if turn.kind == "assistant" and any(map(_says_something, written_turn)):
            holding.add(turn.message_index)
        out.extend(written_turn)
    if validate:
        # What is written: an assistant message the policy emptied is refused like any empty one,
        # a message it left out altogether is absent.  OpenAI takes a user message with empty content.
        omitted = set(range(len(messages))) - written
        check_conversation(
            messages,
            _TARGET,
            writer.replaced,
            (ProblemKind.EMPTY_USER_MESSAGE,),
            found=[] if out else [ConversationProblem(ProblemKind.NO_MESSAGES, len(messages))],
            omitted=omitted,
            holding=holding,
            left_out=writer.left_out,
        )
    return Converted(out, writer.conversion.notes)


class _Writer:
    def __init__(self, conversion: Conversion, split: set[int], tool_ids: Mapping[tuple[int, int], str]) -> None:
        self.conversion = conversion
        # (message index, content index) -> the id written for a call or result, where not its own
        self.tool_ids = tool_ids
        self.replaced: dict[tuple[int, int], str | None] = {}
        self.split = split  # the messages whose tool results go out as tool messages of their own
        self.left_out: set[tuple[int, int]] = set()  # blank text after results, not written
        self.carried = MessageCarried(FMT)
        self.fields_sent = -1  # the last message whose kept fields are written

    def _fallback(
        self, turn: Turn, index: int, block: ContentBlock, output_index: int | None = None
    ) -> dict[str, Any] | None:
        # Media the API takes from the user only: say where it stood, or "cannot hold a PNG" misleads.
        held_elsewhere = output_index is None and turn.kind != "user" and _part("user", block, {}) is not None
        why = in_message(turn.kind) if held_elsewhere else ""
        # Media of a user turn refused for its URL: a file id, or a type OpenAI takes inline only.
        hint = url_hint(block) + media_type_hint(block) if output_index is None and turn.kind == "user" else ""
        text = self.conversion.refuse(turn.message_index, index, block, output_index, why, hint)
        return None if text is None else {"type": "text", "text": text}

    def turn(self, turn: Turn) -> list[dict[str, Any]]:
        if turn.kind == "tool":
            return [
                self._tool_message(turn, index, block)
                for index, block in turn.blocks
                if isinstance(block, ToolResultBlock)
            ]
        own = self.carried.of(turn)
        out: dict[str, Any] = {"role": turn.kind}
        parts: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        for index, block in turn.blocks:
            extras = own.part(index)
            if isinstance(block, ToolUseBlock) and turn.kind == "assistant":
                calls.append(_tool_call(block, self.tool_ids.get((turn.message_index, index), block.id or "")))
                continue
            part = _part(turn.kind, block, extras)
            if part is None:
                part = self._fallback(turn, index, block)
                self.replaced[turn.message_index, index] = None if part is None else part["text"]
            if part is not None:
                parts.append(part)
        if not (parts or calls) and self._left_out(turn):
            return []  # as the conversation is checked: the turn is absent
        # The message's kept fields go out once, with the first of its turns written: its tool results
        # cut it into turns, and each turn sent with them would be read back as a message holding them.
        fields = own.fields if self.fields_sent != turn.message_index else {}
        skip = ["role"]  # a kept role is the developer's, written below
        if turn.kind == "assistant":
            # The reader keeps these under "response"; metadata written by hand may hold them among the
            # kept fields, and servers that refuse unknown properties answer them with a 400.
            skip += ANSWER_FIELDS
        if turn.kind == "assistant" and _refusal_read_as_text(fields, own.form):
            if [block for _, block in turn.blocks] == [TextBlock(fields["refusal"])]:
                parts = []  # the refusal says it, with the content it came with: not twice
            else:
                # Edited since: what the message holds now is written, and the refusal it no longer
                # says is stale, as is the content that came with it.
                skip += ["refusal", "content"]
        if turn.kind == "assistant" and "audio" in fields and _transcript_edited(turn):
            skip.append("audio")  # it says the transcript, which the text no longer does: the edit is sent
        if turn.kind == "system" and own.fields.get("role") == "developer":
            out["role"] = "developer"
        write_content(out, parts, own.form, optional=turn.kind == "assistant")
        if calls:
            out["tool_calls"] = calls
        if turn.message.name is not None:
            name = _sendable_name(turn.message.name)
            if name:
                out["name"] = name
        if blank_after_results(turn, self.split) and all(fields.get(key) is None for key in _SAYING_FIELDS):
            # Blank text after the message's tool results, which go out as tool messages: alone, it
            # would be an assistant message of its own saying nothing.  The other turns carry it,
            # and the kept fields.  (Before or between them it is no turn: see split_turns.)
            self.left_out.update((turn.message_index, index) for index, _ in turn.blocks)
            return []
        write_kept(out, fields, skip)
        self.fields_sent = turn.message_index
        return [_without_empty_content(out)]

    def _left_out(self, turn: Turn) -> bool:
        """Whether the policy dropped every block of ``turn``, and the turn is better not written at all:
        a run of a message whose tool results go out as tool messages of their own, or a user turn (an
        empty user message between a call and its results would part them).  An assistant message the
        policy emptied is written, and refused by the check as the API would refuse it."""
        return (
            bool(turn.blocks)
            and all((turn.message_index, index) in self.replaced for index, _ in turn.blocks)
            and (turn.kind != "assistant" or turn.message_index in self.split)
        )

    def _tool_message(self, turn: Turn, index: int, result: ToolResultBlock) -> dict[str, Any]:
        own = Carried(result.metadata, FMT, result.output)
        parts: list[dict[str, Any]] = []
        for inner_index, block in enumerate(result.output):
            part = _text_part(block, own.part(inner_index))
            if part is None:
                part = self._fallback(turn, index, block, inner_index)
            if part is not None:
                parts.append(part)
        call_id = self.tool_ids.get((turn.message_index, index), result.id or "")
        out: dict[str, Any] = {"role": "tool", "tool_call_id": call_id}
        write_content(out, parts, own.form, optional=False)
        write_kept(out, own.fields, skip=("role",))
        return _without_empty_content(out)


def _says_something(written: dict[str, Any]) -> bool:
    """Whether a written assistant message is one the API takes without tool calls: it refuses only
    one with no content at all (a 400, "expected a string, got null"), and takes ``content: ""``."""
    return written.get("content") is not None or any(written.get(key) is not None for key in _SAYING_FIELDS)


def _without_empty_content(out: dict[str, Any]) -> dict[str, Any]:
    """``out`` without ``content: []``, which the API refuses ("expected an array with minimum length
    1"), though the SDK's types allow it: an assistant message then has no content (its calls or its
    audio say what it says), any other says nothing as ``""``."""
    if out.get("content") == []:
        if out["role"] == "assistant":
            del out["content"]
        else:
            out["content"] = ""
    return out


def _refusal_read_as_text(fields: Mapping[str, Any], form: ContentForm | None) -> bool:
    """Whether the message's text was read from its ``refusal``, the content it came with (which
    said nothing) kept as it was (``"content"``, or the form ``"absent"``): see ``_openai_read.read_assistant``."""
    return isinstance(fields.get("refusal"), str) and ("content" in fields or form == "absent")


def _transcript_edited(turn: Turn) -> bool:
    """Whether an audio answer's text, read from its transcript (kept with the whole audio in
    ``metadata["openai"]["response"]``), was changed since: its audio still says the transcript.
    (An answer whose content said something besides its audio, which OpenAI's do not, counts as
    edited too: its text is then sent without the audio.)"""
    own = turn.message.metadata.get(FMT)
    response = own.get(RESPONSE_KEY) if isinstance(own, Mapping) else None
    said = answer_transcript(response.get("audio") if isinstance(response, Mapping) else None)
    return said is not None and [block for _, block in turn.blocks] != [TextBlock(said)]


def _text_part(block: ContentBlock, extras: dict[str, Any]) -> dict[str, Any] | None:
    if not isinstance(block, TextBlock):
        return None
    if extras.pop("type", None) == "refusal":
        return merged({"type": "refusal", "refusal": block.text}, extras)
    return merged({"type": "text", "text": block.text}, extras)


# The names the API takes for a participant; it answers any other with a 400.
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_-]+")


def _sendable_name(name: str) -> str:
    """``name`` as the API takes it: each run of other characters as ``_``, cut to 64; ``""`` when
    nothing of it is left (a name in another script), which is better sent as no name than as ``_``."""
    if _NAME.fullmatch(name):
        return name
    sendable = _NOT_IN_NAME.sub("_", name)[:64]
    return sendable if sendable.strip("_") else ""


def _part(kind: str, block: ContentBlock, extras: dict[str, Any]) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return _text_part(block, extras)
    if kind != "user":
        return None  # system and assistant content is text only
    if isinstance(block, MEDIA_BLOCKS):
        return media_part(block, extras)
    return None


def _tool_call(block: ToolUseBlock, call_id: str) -> dict[str, Any]:
    fields = Carried(block.metadata, FMT).fields
    kind = "custom" if fields.pop("type", None) == "custom" else "function"
    body = {"name": block.name or ""}
    if kind == "custom":
        # Free text, read into content; an input given since, which the text no longer says, is
        # written as its JSON text (the rule for every call), so that the edit is what is sent.
        body["input"] = arguments_text(block) if block.input else block.content or ""
    else:
        body["arguments"] = arguments_text(block)
    kept_body = fields.pop(kind, None)
    if isinstance(kept_body, Mapping):  # the body's fields we have no place for
        body.update((key, value) for key, value in kept_body.items() if key not in body)
    # The call's own fields (Gemini's extra_content, whose thought signature its server wants back).
    return write_kept({"id": call_id, "type": kind, kind: body}, fields)
