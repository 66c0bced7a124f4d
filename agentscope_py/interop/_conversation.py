"""Whole-conversation checks: what a provider API would reject, and the repairs that need no guessing.

Both functions read the conversation through :func:`~._turns.split_turns`, the
same cut the converters use: a tool call is answered only by results that come
right after the turn holding it (OpenAI wants the ``tool`` messages right after
the assistant message; Anthropic the ``tool_result`` blocks in the next user turn).
"""

from __future__ import annotations

import enum
from collections import defaultdict, deque
from collections.abc import Collection, Iterable, Mapping, Sequence

import attrs

from .._blocks import ContentBlock, TextBlock, ToolResultBlock, ToolUseBlock
from .._enums import MsgRole, ToolResultState
from .._messages import Msg
from .._problems import ConversationProblem, ProblemKind
from .._role_messages import ToolResultMessage
from ..errors import ConversationError
from ._common import as_message_list
from ._turns import blank_after_results, holding_results, says_nothing, split_turns

__all__ = [
    "ConversationProblem",
    "ProblemKind",
    "RepairAction",
    "RepairChange",
    "RepairedConversation",
    "repair_conversation",
    "validate_conversation",
]


class RepairAction(enum.Enum):
    """What :func:`repair_conversation` did about a problem."""

    ADDED_ERROR_RESULT = "added_error_result"
    DROPPED_ORPHAN_RESULT = "dropped_orphan_result"
    DROPPED_DUPLICATE_RESULT = "dropped_duplicate_result"
    DROPPED_EMPTY_ASSISTANT_MESSAGE = "dropped_empty_assistant_message"
    DROPPED_EMPTY_USER_MESSAGE = "dropped_empty_user_message"
    MOVED_RESULTS_FIRST = "moved_results_first"
    MOVED_RESULT_TO_ITS_CALL = "moved_result_to_its_call"


@attrs.frozen
class RepairChange:
    """One change; ``problem`` locates what it fixed in the conversation as it was given."""

    action: RepairAction
    problem: ConversationProblem

    def __str__(self) -> str:
        return f"{self.action.value.replace('_', ' ')}: {self.problem}"


@attrs.frozen
class RepairedConversation:
    """The repaired messages, each change made, and the problems left (indices into ``messages``)."""

    messages: tuple[Msg, ...]
    changes: tuple[RepairChange, ...]
    remaining: tuple[ConversationProblem, ...]


#: The text of the result :func:`repair_conversation` gives a call that never got one.
SYNTHETIC_RESULT_TEXT = "No result was recorded for this tool call."

# Where a synthetic result goes: (message index, content index).  Index 0 means
# "a new TOOL message before that message"; past the last message, at the end.
_Position = tuple[int, int]


@attrs.frozen
class _Call:
    message_index: int
    block_index: int
    block: ToolUseBlock


# The roles whose message with nothing in it is a problem, and what the problem and its repair are.
_EMPTY = {
    MsgRole.ASSISTANT: (ProblemKind.EMPTY_ASSISTANT_MESSAGE, RepairAction.DROPPED_EMPTY_ASSISTANT_MESSAGE),
    MsgRole.USER: (ProblemKind.EMPTY_USER_MESSAGE, RepairAction.DROPPED_EMPTY_USER_MESSAGE),
    MsgRole.TOOL: (ProblemKind.EMPTY_USER_MESSAGE, RepairAction.DROPPED_EMPTY_USER_MESSAGE),
}


_EMPTY_KINDS = frozenset(kind for kind, _ in _EMPTY.values())


def _emptiness(message: Msg) -> tuple[ProblemKind, RepairAction] | None:
    """The problem of a message (not a system one) with nothing in it but (possibly) blank text.
    A TOOL message with no blocks at all is none: it is no turn (see ``split_turns``)."""
    if message.role is MsgRole.TOOL and not message.content:
        return None
    empty = _EMPTY.get(message.role) if message.role is not None else None
    if empty is not None and says_nothing(message.content):
        return empty
    return None


def _scan(
    messages: Sequence[Msg], merged_assistant_turns: bool = False, as_written: bool = False
) -> tuple[list[ConversationProblem], dict[ConversationProblem, _Call], dict[ConversationProblem, _Position]]:
    """The problems, and for each unanswered call the call and where its result would go.
    ``merged_assistant_turns``: consecutive assistant turns are written as one (as Anthropic's
    turns alternate), so the results after the last answer the calls of all.  ``as_written``: the
    messages are what a writer sends, so blank text after a message's results is a turn; else it
    is none, as the writers leave it out unless it carries something (an OpenAI audio id)."""
    problems: list[ConversationProblem] = []
    calls: dict[ConversationProblem, _Call] = {}
    positions: dict[ConversationProblem, _Position] = {}
    started = False
    for index, message in enumerate(messages):
        if message.role is MsgRole.SYSTEM:
            if started:
                problems.append(ConversationProblem(ProblemKind.LATE_SYSTEM_MESSAGE, index))
        else:
            started = True
        empty = _emptiness(message)
        if empty is not None:
            problems.append(ConversationProblem(empty[0], index))

    open_calls: dict[str, deque[_Call]] = {}  # id -> the calls of the turn with it not answered yet
    unanswerable: list[_Call] = []  # calls without an id: no result can ever name them
    answered: set[str] = set()

    def close(position: _Position) -> None:
        for call in [*unanswerable, *(call for same_id in open_calls.values() for call in same_id)]:
            problem = ConversationProblem(
                ProblemKind.UNANSWERED_TOOL_CALL, call.message_index, call.block_index, call.block.id
            )
            problems.append(problem)
            calls[problem] = call
            positions[problem] = position
        open_calls.clear()
        unanswerable.clear()

    previous = None  # the kind of the turn before
    turns = split_turns(messages)
    split = holding_results(turns)
    for turn in turns:
        if not as_written and blank_after_results(turn, split):
            continue
        merged = merged_assistant_turns and turn.kind == previous == "assistant"
        previous = turn.kind
        if turn.kind == "tool":
            for block_index, block in turn.blocks:
                assert isinstance(block, ToolResultBlock)
                if block.id is not None and (pending := open_calls.get(block.id)):
                    # Calls sharing an id (reported below) are answered in turn: no result is thrown away.
                    pending.popleft()
                    answered.add(block.id)
                    continue
                kind = ProblemKind.DUPLICATE_TOOL_RESULT if block.id in answered else ProblemKind.ORPHAN_TOOL_RESULT
                problems.append(ConversationProblem(kind, turn.message_index, block_index, block.id))
            continue
        if not merged:
            close((turn.message_index, turn.blocks[0][0] if turn.blocks else 0))
        if turn.kind != "assistant":
            continue  # a call anywhere else is no call the APIs see: the converters refuse it
        for block_index, block in turn.blocks:
            if isinstance(block, ToolUseBlock):
                call = _Call(turn.message_index, block_index, block)
                if block.id is None:
                    unanswerable.append(call)
                    continue
                if block.id in open_calls:  # another call of the turn has it
                    problems.append(
                        ConversationProblem(ProblemKind.DUPLICATE_TOOL_CALL_ID, turn.message_index, block_index, block.id)
                    )
                open_calls.setdefault(block.id, deque()).append(call)
    close((len(messages), 0))
    problems.sort(key=lambda p: (p.message_index, -1 if p.block_index is None else p.block_index))
    return problems, calls, positions


def validate_conversation(messages: Iterable[Msg]) -> list[ConversationProblem]:
    """Every problem of the conversation, in order of where it is.

    A tool call counts as answered only by results that follow the turn holding
    it without anything else in between, which is what the provider APIs require.
    """
    given = as_message_list(messages)
    return _scan(given)[0] if given else [ConversationProblem(ProblemKind.NO_MESSAGES, 0)]


def _synthetic_result(call: ToolUseBlock) -> ToolResultBlock:
    return ToolResultBlock(
        call.id,
        call.name,
        TextBlock(f"[ERROR] {SYNTHETIC_RESULT_TEXT}"),
        {Msg.METADATA_SYNTHETIC: True},
        ToolResultState.ERROR,
    )


def repair_conversation(messages: Iterable[Msg]) -> RepairedConversation:
    """Fix what can be fixed without inventing content, and say what was done.

    * an empty assistant message is dropped;
    * a tool call with no result right after it gets the result that answers it
      later in the conversation, moved there; or, when there is none, an error
      result (a ``ToolResultBlock`` in state ERROR, marked
      ``metadata["agentscope_synthetic"]``);
    * a result that answers no call, or repeats one, and was not moved to a call
      so, is dropped (and a message left empty by that goes too);
    * the results of a TOOL message that come after its other blocks are moved
      first, where the APIs want them.

    A late system message, a call without an id, or a conversation with no
    message, cannot be fixed that way; those stay in ``remaining``.
    """
    given = as_message_list(messages)
    changes: list[RepairChange] = []
    kept, origin, order = _kept(given, changes)
    problems, calls, positions = _scan(kept)
    answers = _answers(problems)
    taken = set(answers.values())
    dropped: set[tuple[int, int | None]] = set()
    inserts: defaultdict[_Position, list[ContentBlock]] = defaultdict(list)
    for problem in problems:
        block_index = problem.block_index
        if block_index is not None and problem.message_index in order:
            block_index = order[problem.message_index][block_index]
        as_given = attrs.evolve(problem, message_index=origin[problem.message_index], block_index=block_index)
        if problem.kind is ProblemKind.UNANSWERED_TOOL_CALL and problem.tool_call_id is not None:
            answer = answers.get(problem)
            if answer is None:
                inserts[positions[problem]].append(_synthetic_result(calls[problem].block))
                changes.append(RepairChange(RepairAction.ADDED_ERROR_RESULT, as_given))
            else:
                dropped.add((answer.message_index, answer.block_index))
                inserts[positions[problem]].append(kept[answer.message_index].content[answer.block_index or 0])
                changes.append(RepairChange(RepairAction.MOVED_RESULT_TO_ITS_CALL, as_given))
        elif problem in taken:
            continue
        elif problem.kind in (ProblemKind.ORPHAN_TOOL_RESULT, ProblemKind.DUPLICATE_TOOL_RESULT):
            dropped.add((problem.message_index, problem.block_index))
            action = (
                RepairAction.DROPPED_ORPHAN_RESULT
                if problem.kind is ProblemKind.ORPHAN_TOOL_RESULT
                else RepairAction.DROPPED_DUPLICATE_RESULT
            )
            changes.append(RepairChange(action, as_given))
    repaired = _rebuilt(kept, inserts, dropped, origin, changes)
    changes.sort(key=lambda c: (c.problem.message_index, c.problem.block_index or 0))
    return RepairedConversation(tuple(repaired), tuple(changes), tuple(validate_conversation(repaired)))


def _kept(given: list[Msg], changes: list[RepairChange]) -> tuple[list[Msg], list[int], dict[int, list[int]]]:
    """The messages worth sending, a TOOL message's results put first, each change recorded in
    ``changes``; with, for each message kept, its index in ``given``, and for each whose blocks
    moved, the index each block had."""
    kept: list[Msg] = []
    origin: list[int] = []  # kept index -> index in ``given``
    order: dict[int, list[int]] = {}  # kept index -> the given index of each block, where they moved
    for index, message in enumerate(given):
        empty = _emptiness(message)
        if empty is not None:
            changes.append(RepairChange(empty[1], ConversationProblem(empty[0], index)))
            continue
        moved = _results_first(message)
        if moved is not None:
            # The results answer the calls before; what came ahead of them cut them off.
            first = next(i for i, position in enumerate(moved) if position != i)
            result = message.content[moved[first]]  # the first result out of place
            assert isinstance(result, ToolResultBlock)
            problem = ConversationProblem(ProblemKind.ORPHAN_TOOL_RESULT, index, moved[first], result.id)
            changes.append(RepairChange(RepairAction.MOVED_RESULTS_FIRST, problem))
            order[len(kept)] = moved
            message = message.with_content([message.content[i] for i in moved])
        kept.append(message)
        origin.append(index)
    return kept, origin, order


def _answers(problems: list[ConversationProblem]) -> dict[ConversationProblem, ConversationProblem]:
    """For each call left without a result, the result that answers no call where it stands (an
    orphan, or the repeat of an id answered before) to move to it: the nearest before it of its
    id (one assistant message per call, then their results, say), rather than dropping the result
    while that call gets an error result.  ``problems`` come in the order of where they are."""
    answers: dict[ConversationProblem, ConversationProblem] = {}
    waiting: defaultdict[str | None, list[ConversationProblem]] = defaultdict(list)  # id -> its calls still waiting
    for problem in problems:
        if problem.kind is ProblemKind.UNANSWERED_TOOL_CALL and problem.tool_call_id is not None:
            waiting[problem.tool_call_id].append(problem)
        elif problem.kind in (ProblemKind.ORPHAN_TOOL_RESULT, ProblemKind.DUPLICATE_TOOL_RESULT):
            calls_waiting = waiting.get(problem.tool_call_id)
            if calls_waiting:
                answers[calls_waiting.pop()] = problem
    return answers


def _rebuilt(
    kept: list[Msg],
    inserts: Mapping[_Position, list[ContentBlock]],
    dropped: set[tuple[int, int | None]],
    origin: list[int],
    changes: list[RepairChange],
) -> list[Msg]:
    """``kept`` with the results ``inserts`` places put in and the ``dropped`` ones taken out; a
    message that leaves nothing worth sending goes, recorded in ``changes``."""
    repaired: list[Msg] = []
    for message_index, message in enumerate(kept):
        if (message_index, 0) in inserts:
            repaired.append(_inserted_message(inserts[message_index, 0]))
        content: list[ContentBlock] = []
        for block_index, block in enumerate(message.content):
            if block_index and (message_index, block_index) in inserts:
                content.extend(inserts[message_index, block_index])
            if (message_index, block_index) not in dropped:
                content.append(block)
        if tuple(content) == message.content:
            repaired.append(message)
            continue
        shorter = message.with_content(content)
        empty = _emptiness(shorter)
        if empty is None:
            if content:
                repaired.append(shorter)
        elif content or message.role is MsgRole.ASSISTANT:
            # Only dropped results were worth sending; what is left would be refused.
            changes.append(RepairChange(empty[1], ConversationProblem(empty[0], origin[message_index])))
        # else a message that held nothing but the dropped results goes with them
    if (len(kept), 0) in inserts:
        repaired.append(_inserted_message(inserts[len(kept), 0]))
    return repaired


def _results_first(message: Msg) -> list[int] | None:
    """For a TOOL message with results after other blocks: the order of its blocks with the results
    first (each as its index); ``None`` when they are first already, or it is no TOOL message."""
    if message.role is not MsgRole.TOOL:
        return None
    results = [i for i, block in enumerate(message.content) if isinstance(block, ToolResultBlock)]
    others = [i for i, block in enumerate(message.content) if not isinstance(block, ToolResultBlock)]
    ahead = [i for i in others if results and i < results[-1]]
    if says_nothing(message.content[i] for i in ahead):  # blank text is no turn (see split_turns)
        return None
    return results + others


def _inserted_message(results: list[ContentBlock]) -> ToolResultMessage:
    """The TOOL message of ``results`` put where calls wanted them: marked synthetic when the repair
    made all of them, not when it moved a real one there."""
    made = all(block.metadata.get(Msg.METADATA_SYNTHETIC) is True for block in results if isinstance(block, ToolResultBlock))
    return ToolResultMessage(results, metadata={Msg.METADATA_SYNTHETIC: True} if made else None)


#: ``(message index, content index)`` of each block a converter's policy changed: ``None`` when it
#: was dropped, else the text sent in its place.
Replaced = Mapping[tuple[int, int], str | None]


def check_conversation(
    messages: Sequence[Msg],
    target: str,
    replaced: Replaced,
    tolerated: Iterable[ProblemKind] = (),
    found: Iterable[ConversationProblem] = (),
    omitted: Collection[int] = (),
    holding: Collection[int] = (),
    merged_assistant_turns: bool = False,
    left_out: Collection[tuple[int, int]] = (),
) -> None:
    """Raise :class:`ConversationError` when ``target`` would answer 400 to ``messages`` as written,
    that is with the ``replaced`` blocks dropped or turned into text, and without the ``omitted``
    messages (those the writer wrote nothing for: a turn the policy emptied counts as absent, not as
    an empty turn parting a call from its results); ``tolerated`` problems ``target`` takes, and
    ``found`` are problems the writer saw in what it wrote (an empty turn it did write); ``holding``
    messages are not empty as written, though they hold no block (an OpenAI audio reference);
    ``merged_assistant_turns``: ``target`` writes consecutive assistant messages as one turn;
    ``left_out``: ``(message index, content index)`` of blocks the writer left out by its own rule
    (blank text after a message's results), not by the policy."""
    harmless = {ProblemKind.LATE_SYSTEM_MESSAGE, *tolerated}
    if replaced or omitted or left_out:
        written, places = _as_written(messages, {**dict.fromkeys(left_out), **replaced}, omitted)
        found_written = _scan(written, merged_assistant_turns, as_written=True)[0]
        fatal = [_placed(p, places) for p in found_written if p.kind not in harmless]
    else:  # written as given (the common case): the problems are where they were found
        fatal = [p for p in _scan(messages, merged_assistant_turns, as_written=True)[0] if p.kind not in harmless]
    if holding:
        fatal = [p for p in fatal if p.message_index not in holding or p.kind not in _EMPTY_KINDS]
    seen = set(fatal)
    made = [p for p in found if p not in seen]  # by the writer: not in the caller's messages
    fatal += made
    fatal.sort(key=lambda p: (p.message_index, -1 if p.block_index is None else p.block_index))
    if fatal:
        listed = "; ".join(map(str, fatal[:5])) + ("; …" if len(fatal) > 5 else "")
        # A problem the policy made (a message it emptied) is not in the caller's messages: say so.
        changed = " (as written, after on_unsupported changed some blocks)" if replaced else ""
        # repair_conversation sees the messages as given, where a turn the policy emptied still holds its blocks.
        instead = "pass on_unsupported='text' to leave a note where a block was dropped, " if made and replaced else ""
        if all(problem.kind is ProblemKind.NO_MESSAGES for problem in fatal):
            advice = "Give it a message to send, "  # which no repair can make
        else:
            advice = "Call agentscope_py.interop.repair_conversation(messages) to fix what can be fixed, "
        raise ConversationError(
            f"{target} would reject this conversation{changed}: {listed}. {advice}"
            f"{instead}or pass validate=False to convert it as it is",
            fatal,
        )


# For each message as written: its index in the messages given, and the index there of each block.
_Places = list[tuple[int, list[int]]]


def _as_written(messages: Sequence[Msg], replaced: Replaced, omitted: Collection[int]) -> tuple[list[Msg], _Places]:
    touched = {message_index for message_index, _ in replaced}
    out: list[Msg] = []
    places: _Places = []
    for message_index, message in enumerate(messages):
        if message_index in omitted:
            continue
        if message_index not in touched:
            out.append(message)
            places.append((message_index, list(range(len(message.content)))))
            continue
        content: list[ContentBlock] = []
        kept: list[int] = []
        for block_index, block in enumerate(message.content):
            key = (message_index, block_index)
            if key not in replaced:
                content.append(block)
            elif (text := replaced[key]) is not None:
                content.append(TextBlock(text))
            else:
                continue
            kept.append(block_index)
        out.append(message.with_content(content))
        places.append((message_index, kept))
    return out, places


def _placed(problem: ConversationProblem, places: _Places) -> ConversationProblem:
    """``problem``, found in the messages as written, located in the messages as given."""
    message_index, blocks = places[problem.message_index]
    block_index = None if problem.block_index is None else blocks[problem.block_index]
    return attrs.evolve(problem, message_index=message_index, block_index=block_index)
