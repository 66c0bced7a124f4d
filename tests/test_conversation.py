"""validate_conversation and repair_conversation."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from strategies import messages

from agentscope_py import (
    AssistantMessage,
    ConversationError,
    Msg,
    MsgRole,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolResultMessage,
    ToolResultState,
    ToolUseBlock,
    URLSource,
    UserMessage,
    VideoBlock,
)
from agentscope_py.interop import (
    ConversationProblem,
    ProblemKind,
    RepairAction,
    from_openai,
    repair_conversation,
    to_anthropic,
    to_openai,
    validate_conversation,
)

CALL_A = ToolUseBlock("a", "search", {"q": "x"})
CALL_B = ToolUseBlock("b", "fetch", {})
RESULT_A = ToolResultBlock("a", "search", TextBlock("found"), state=ToolResultState.SUCCESS)
RESULT_B = ToolResultBlock("b", "fetch", TextBlock("page"), state=ToolResultState.SUCCESS)


def kinds(problems: list[ConversationProblem] | tuple[ConversationProblem, ...]) -> list[ProblemKind]:
    return [problem.kind for problem in problems]


def test_a_sound_conversation_has_no_problems() -> None:
    conversation = [
        SystemMessage("be brief"),
        UserMessage("hi"),
        AssistantMessage(TextBlock("looking"), CALL_A, CALL_B),
        ToolResultMessage(RESULT_A, RESULT_B),
        AssistantMessage("done"),
    ]
    assert validate_conversation(conversation) == []


def test_results_inside_the_assistant_message_count() -> None:
    assert validate_conversation([UserMessage("hi"), AssistantMessage(CALL_A, RESULT_A, TextBlock("done"))]) == []


def test_each_kind_of_problem_is_found_with_its_place() -> None:
    conversation = [
        UserMessage("hi"),
        AssistantMessage(CALL_A, CALL_B),
        ToolResultMessage(RESULT_A, RESULT_A),
        ToolResultMessage.of("zzz", "search", "stray"),
        SystemMessage("late"),
        AssistantMessage(TextBlock("  ")),
    ]
    assert validate_conversation(conversation) == [
        ConversationProblem(ProblemKind.UNANSWERED_TOOL_CALL, 1, 1, "b"),
        ConversationProblem(ProblemKind.DUPLICATE_TOOL_RESULT, 2, 1, "a"),
        ConversationProblem(ProblemKind.ORPHAN_TOOL_RESULT, 3, 0, "zzz"),
        ConversationProblem(ProblemKind.LATE_SYSTEM_MESSAGE, 4),
        ConversationProblem(ProblemKind.EMPTY_ASSISTANT_MESSAGE, 5),
    ]


def test_problems_read_as_sentences() -> None:
    problem = ConversationProblem(ProblemKind.UNANSWERED_TOOL_CALL, 1, 0, "b")
    assert str(problem) == "messages[1].content[0]: tool call 'b' has no result right after it"
    assert str(ConversationProblem(ProblemKind.EMPTY_ASSISTANT_MESSAGE, 4)) == "messages[4]: assistant message with no content"
    long_id = "b" * 1_000_000  # a hostile id stays out of the logs the error lands in
    assert str(ConversationProblem(ProblemKind.ORPHAN_TOOL_RESULT, 2, 0, long_id)).startswith(
        f"messages[2].content[0]: tool result {'b' * 48!r}…(1,000,000 characters) "
    )


def test_a_result_must_come_right_after_its_call() -> None:
    conversation = [AssistantMessage(CALL_A), UserMessage("wait"), ToolResultMessage(RESULT_A)]
    assert kinds(validate_conversation(conversation)) == [ProblemKind.UNANSWERED_TOOL_CALL, ProblemKind.ORPHAN_TOOL_RESULT]


def test_repair_answers_an_unanswered_call_with_a_marked_error() -> None:
    conversation = [UserMessage("hi"), AssistantMessage(CALL_A, CALL_B), ToolResultMessage(RESULT_A), UserMessage("and?")]
    repaired = repair_conversation(conversation)
    assert [type(m) for m in repaired.messages] == [UserMessage, AssistantMessage, ToolResultMessage, ToolResultMessage, UserMessage]
    (synthetic,) = repaired.messages[3].content
    assert isinstance(synthetic, ToolResultBlock)
    assert (synthetic.id, synthetic.name, synthetic.state) == ("b", "fetch", ToolResultState.ERROR)
    assert synthetic.metadata == {Msg.METADATA_SYNTHETIC: True}
    assert repaired.messages[3].metadata == {Msg.METADATA_SYNTHETIC: True}
    assert [c.action for c in repaired.changes] == [RepairAction.ADDED_ERROR_RESULT]
    assert repaired.changes[0].problem == ConversationProblem(ProblemKind.UNANSWERED_TOOL_CALL, 1, 1, "b")
    assert str(repaired.changes[0]) == "added error result: messages[1].content[1]: tool call 'b' has no result right after it"
    assert repaired.remaining == ()


def test_repair_moves_a_result_that_came_later_to_its_call_rather_than_lose_it() -> None:
    # One assistant message per call, then the results (Anthropic merges the two turns; OpenAI cannot).
    separate = [UserMessage("hi"), AssistantMessage(CALL_A), AssistantMessage(CALL_B), ToolResultMessage(RESULT_A), ToolResultMessage(RESULT_B)]
    repaired = repair_conversation(separate)
    assert [[type(b).__name__ for b in m.content] for m in repaired.messages[1:]] == [
        ["ToolUseBlock"], ["ToolResultBlock"], ["ToolUseBlock"], ["ToolResultBlock"]]
    assert repaired.messages[2].content == (RESULT_A,) and Msg.METADATA_SYNTHETIC not in repaired.messages[2].metadata
    assert [(c.action, c.problem) for c in repaired.changes] == [
        (RepairAction.MOVED_RESULT_TO_ITS_CALL, ConversationProblem(ProblemKind.UNANSWERED_TOOL_CALL, 1, 0, "a"))]
    assert str(repaired.changes[0]) == "moved result to its call: messages[1].content[0]: tool call 'a' has no result right after it"
    assert repaired.remaining == () and repair_conversation(repaired.messages).changes == ()
    # Past what came between; a result before its call is not one that came later.
    waited = repair_conversation([AssistantMessage(CALL_A), UserMessage("wait"), ToolResultMessage(RESULT_A)])
    assert [c.action for c in waited.changes] == [RepairAction.MOVED_RESULT_TO_ITS_CALL]
    early = repair_conversation([ToolResultMessage(RESULT_A), AssistantMessage(CALL_A), UserMessage("and?")])
    assert [c.action for c in early.changes] == [RepairAction.DROPPED_ORPHAN_RESULT, RepairAction.ADDED_ERROR_RESULT]
    # Later in the message that holds the call, as AgentScope keeps results.
    inline = repair_conversation([AssistantMessage(CALL_A, CALL_B, RESULT_A, TextBlock("so"), RESULT_B)])
    assert inline.messages[0].content == (CALL_A, CALL_B, RESULT_A, RESULT_B, TextBlock("so"))
    assert [c.action for c in inline.changes] == [RepairAction.MOVED_RESULT_TO_ITS_CALL]
    # To the nearest call of its id: an id a model reuses in a later turn, answered once before.
    again = ToolResultBlock("a", "search", TextBlock("again"), state=ToolResultState.SUCCESS)
    reused = [AssistantMessage(CALL_A), ToolResultMessage(RESULT_A), UserMessage("more"), AssistantMessage(CALL_A), UserMessage("wait"), ToolResultMessage(again)]
    assert repair_conversation(reused).messages[4].content == (again,)
    twice = [AssistantMessage(CALL_A), UserMessage("more"), AssistantMessage(CALL_A), UserMessage("wait"), ToolResultMessage(again)]
    repaired_twice = repair_conversation(twice)
    assert [c.action for c in repaired_twice.changes] == [RepairAction.ADDED_ERROR_RESULT, RepairAction.MOVED_RESULT_TO_ITS_CALL]
    assert repaired_twice.messages[4].content == (again,) and repaired_twice.remaining == ()


def test_repair_inserts_inside_a_message_when_the_call_is_answered_inline() -> None:
    conversation = [AssistantMessage(CALL_A, CALL_B, RESULT_A, TextBlock("so"))]
    (message,) = repair_conversation(conversation).messages
    assert [type(b).__name__ for b in message.content] == ["ToolUseBlock", "ToolUseBlock", "ToolResultBlock", "ToolResultBlock", "TextBlock"]
    assert validate_conversation([message]) == []


def test_repair_can_drop_and_insert_in_the_same_message() -> None:
    conversation = [AssistantMessage(CALL_A), AssistantMessage(ToolResultBlock("zzz", "x"), TextBlock("next"))]
    repaired = repair_conversation(conversation)
    assert [type(b).__name__ for b in repaired.messages[1].content] == ["ToolResultBlock", "TextBlock"]
    assert repaired.messages[1].content[0].id == "a"  # type: ignore[attr-defined]
    assert repaired.remaining == ()


def test_repair_drops_orphans_duplicates_and_empty_assistant_messages() -> None:
    conversation = [
        UserMessage("hi"),
        AssistantMessage(CALL_A),
        AssistantMessage(""),
        ToolResultMessage(RESULT_A, RESULT_A),
        ToolResultMessage.of("zzz", "x", "stray"),
    ]
    repaired = repair_conversation(conversation)
    assert list(repaired.messages) == [UserMessage("hi", id=conversation[0].id, timestamp=conversation[0].timestamp), conversation[1], conversation[3].with_content([RESULT_A])]
    assert [(c.action, c.problem.message_index) for c in repaired.changes] == [
        (RepairAction.DROPPED_EMPTY_ASSISTANT_MESSAGE, 2),
        (RepairAction.DROPPED_DUPLICATE_RESULT, 3),
        (RepairAction.DROPPED_ORPHAN_RESULT, 4),
    ]


def test_repair_leaves_what_it_cannot_fix_in_remaining() -> None:
    conversation = [UserMessage("hi"), SystemMessage("late"), AssistantMessage(ToolUseBlock(None, "f", {}))]
    repaired = repair_conversation(conversation)
    assert repaired.messages == tuple(conversation)
    assert kinds(repaired.remaining) == [ProblemKind.LATE_SYSTEM_MESSAGE, ProblemKind.UNANSWERED_TOOL_CALL]


_PINNED = st.one_of([messages(role) for role in MsgRole])
_CONVERSATIONS = st.lists(
    _PINNED
    | st.sampled_from(
        [
            AssistantMessage(CALL_A),
            AssistantMessage(CALL_A, CALL_B),
            ToolResultMessage(RESULT_A),
            ToolResultMessage(RESULT_B),
            ToolResultMessage(RESULT_A, TextBlock(" ")),
            ToolResultMessage(RESULT_A, TextBlock(""), RESULT_A),
            AssistantMessage(),
        ]
    ),
    max_size=8,
)


# Dropping the repeated result leaves the blank text after the results: no turn, so the added result answers 'b'.
@example([AssistantMessage(CALL_A, CALL_B), ToolResultMessage(RESULT_A, TextBlock(""), RESULT_A)])
@given(_CONVERSATIONS)
def test_repair_fixes_every_fixable_problem_and_is_idempotent(conversation: list[Msg]) -> None:
    repaired = repair_conversation(conversation)
    for problem in repaired.remaining:  # what repair cannot fix without guessing
        assert problem.kind in (ProblemKind.LATE_SYSTEM_MESSAGE, ProblemKind.DUPLICATE_TOOL_CALL_ID, ProblemKind.NO_MESSAGES) or (
            problem.kind is ProblemKind.UNANSWERED_TOOL_CALL and problem.tool_call_id is None
        )
    assert repaired.remaining == tuple(validate_conversation(repaired.messages))
    again = repair_conversation(repaired.messages)
    assert again.changes == () and again.messages == repaired.messages
    # Nothing but tool results and empty messages changes; added results are marked.
    assert others(repaired.messages) == others(conversation)
    given_results = results(conversation)
    kept = [r for r in results(repaired.messages) if not r.metadata.get(Msg.METADATA_SYNTHETIC)]
    assert all(r in given_results for r in kept)


def results(conversation: list[Msg] | tuple[Msg, ...]) -> list[ToolResultBlock]:
    return [b for m in conversation for b in m.get_content_blocks(ToolResultBlock)]


def others(conversation: list[Msg] | tuple[Msg, ...]) -> list[object]:
    """The blocks that are not tool results, leaving out messages (but system ones) blank apart from results."""
    kept: list[object] = []
    for message in conversation:
        rest = [b for b in message.content if not isinstance(b, ToolResultBlock)]
        if message.role is not MsgRole.SYSTEM and all(isinstance(b, TextBlock) and not b.text.strip() for b in rest):
            continue  # repair may drop it, once it has dropped the results
        kept.extend(rest)
    return kept


def test_a_message_without_a_role_is_refused() -> None:
    with pytest.raises(ValueError, match="no role"):
        validate_conversation([Msg("x", role=None)])


def test_calls_of_one_turn_sharing_an_id_are_reported_and_their_results_kept() -> None:
    dup_a, dup_b = ToolUseBlock("dup", "f", {"n": 1}), ToolUseBlock("dup", "f", {"n": 2})
    first, second = ToolResultBlock("dup", "f", TextBlock("one")), ToolResultBlock("dup", "f", TextBlock("two"))
    conversation = [UserMessage("go"), AssistantMessage(dup_a, dup_b), ToolResultMessage(first, second)]
    assert validate_conversation(conversation) == [ConversationProblem(ProblemKind.DUPLICATE_TOOL_CALL_ID, 1, 1, "dup")]
    repaired = repair_conversation(conversation)
    assert repaired.changes == () and repaired.messages == tuple(conversation)  # no real result thrown away
    assert kinds(repaired.remaining) == [ProblemKind.DUPLICATE_TOOL_CALL_ID]
    # One result for the two: the other call is unanswered.
    assert kinds(validate_conversation(conversation[:2] + [ToolResultMessage(first)])) == [
        ProblemKind.DUPLICATE_TOOL_CALL_ID,
        ProblemKind.UNANSWERED_TOOL_CALL,
    ]


def test_a_call_outside_an_assistant_message_is_not_a_call_to_answer() -> None:
    # The converters refuse a ToolUseBlock in a TOOL message; repair must not invent a result for it.
    conversation = [UserMessage("go"), ToolResultMessage(ToolUseBlock("c9", "f", {}))]
    assert validate_conversation(conversation) == []
    assert repair_conversation(conversation).changes == ()


def test_results_after_other_content_in_a_tool_message_are_moved_first() -> None:
    # The text cut the result off from its call: moved, the result answers it; nothing is made up.
    note, result = TextBlock("note"), ToolResultBlock("a", "f", TextBlock("THE REAL RESULT"))
    conversation = [UserMessage("go"), AssistantMessage(CALL_A), ToolResultMessage(note, result)]
    assert kinds(validate_conversation(conversation)) == [ProblemKind.UNANSWERED_TOOL_CALL, ProblemKind.ORPHAN_TOOL_RESULT]
    repaired = repair_conversation(conversation)
    assert [(c.action, c.problem.message_index, c.problem.block_index) for c in repaired.changes] == [
        (RepairAction.MOVED_RESULTS_FIRST, 2, 1)
    ]
    assert repaired.messages[2].content == (result, note) and repaired.remaining == ()
    # An orphan moved first is still an orphan: dropped, and said where it was given.
    stray = ToolResultBlock("zzz", "f", TextBlock("stray"))
    again = repair_conversation([UserMessage("go"), ToolResultMessage(note, stray)])
    assert [(c.action, c.problem.block_index) for c in again.changes] == [
        (RepairAction.MOVED_RESULTS_FIRST, 1),
        (RepairAction.DROPPED_ORPHAN_RESULT, 1),
    ]


def test_a_tool_message_without_blocks_is_no_problem() -> None:
    assert validate_conversation([UserMessage("hi"), ToolResultMessage()]) == []


def test_a_message_with_no_blocks_at_all_is_empty() -> None:
    problems = validate_conversation([UserMessage("hi"), AssistantMessage([]), UserMessage([])])
    assert problems == [
        ConversationProblem(ProblemKind.EMPTY_ASSISTANT_MESSAGE, 1),
        ConversationProblem(ProblemKind.EMPTY_USER_MESSAGE, 2),
    ]


def test_a_call_without_an_id_is_reported_once() -> None:
    conversation = [
        UserMessage("hi"),
        AssistantMessage([ToolUseBlock(None, "f", {})]),
        UserMessage("and?"),
        AssistantMessage("nothing"),
        UserMessage("ok"),
    ]
    assert validate_conversation(conversation) == [ConversationProblem(ProblemKind.UNANSWERED_TOOL_CALL, 1, 0, None)]


def test_a_tool_message_left_blank_by_dropped_results_is_dropped_and_said() -> None:
    conversation = [
        UserMessage("hi"),
        AssistantMessage("x"),
        ToolResultMessage([ToolResultBlock("zz", "f", [TextBlock("r")]), TextBlock(" ")]),
    ]
    repaired = repair_conversation(conversation)
    assert repaired.messages == tuple(conversation[:2])
    assert [(change.action, change.problem) for change in repaired.changes] == [
        (RepairAction.DROPPED_ORPHAN_RESULT, ConversationProblem(ProblemKind.ORPHAN_TOOL_RESULT, 2, 0, "zz")),
        (RepairAction.DROPPED_EMPTY_USER_MESSAGE, ConversationProblem(ProblemKind.EMPTY_USER_MESSAGE, 2)),
    ]
    assert repaired.remaining == ()


def test_an_audio_reference_excuses_only_its_own_message() -> None:
    # The assistant turn that holds an audio reference has no block but is not empty as written;
    # another assistant message that is empty is still refused.
    read = from_openai([{"role": "user", "content": "hi"}, {"role": "assistant", "content": None, "audio": {"id": "a1"}}])
    assert len(to_openai(read)) == 2
    with pytest.raises(ConversationError) as caught:
        to_openai([*read, UserMessage("again"), AssistantMessage([])])
    assert caught.value.problems == (ConversationProblem(ProblemKind.EMPTY_ASSISTANT_MESSAGE, 3),)


@pytest.mark.parametrize("blank", ["", "  "])
def test_openai_takes_an_assistant_message_of_blank_text_and_anthropic_does_not(blank: str) -> None:
    # OpenAI answers 400 to an assistant message with no content at all, not to content "" (what it
    # answers itself when a reasoning model spends its tokens thinking): such a history goes back.
    payload = [{"role": "user", "content": "solve"}, {"role": "assistant", "content": blank}, {"role": "user", "content": "go on"}]
    assert to_openai(from_openai(payload)) == payload
    conversation = [UserMessage("solve"), AssistantMessage(blank), UserMessage("go on")]
    with pytest.raises(ConversationError) as caught:
        to_anthropic(conversation)
    assert caught.value.problems == (ConversationProblem(ProblemKind.EMPTY_ASSISTANT_MESSAGE, 1),)
    # No content at all is what OpenAI refuses: a message with no blocks, or one the policy emptied.
    for emptied in (AssistantMessage([]), AssistantMessage(ThinkingBlock("hmm"))):
        with pytest.raises(ConversationError) as caught:
            to_openai([UserMessage("solve"), emptied, UserMessage("go on")], on_unsupported="drop")
        assert caught.value.problems == (ConversationProblem(ProblemKind.EMPTY_ASSISTANT_MESSAGE, 1),)


def test_a_conversation_with_nothing_to_send_is_refused() -> None:
    # Both APIs answer 400 to no messages; Anthropic takes the system messages apart, so system
    # messages alone leave it none.  The index is where the first message would go.
    nothing = ConversationProblem(ProblemKind.NO_MESSAGES, 0)
    assert validate_conversation([]) == [nothing]
    assert str(nothing) == "messages: nothing to send: no user, assistant or tool message"
    assert repair_conversation([]).remaining == (nothing,)  # nothing to repair it with
    assert repair_conversation([AssistantMessage(" ")]).remaining == (nothing,)  # nor after dropping the rest
    for write in (to_openai, to_anthropic):
        with pytest.raises(ConversationError) as caught:
            write([])
        assert caught.value.problems == (nothing,)
        # No block was dropped, and no repair adds a message: no word of either.
        assert str(caught.value).endswith("nothing to send: no user, assistant or tool message. Give it a message to "
                                          "send, or pass validate=False to convert it as it is")
    assert to_openai([SystemMessage("be terse")]) == [{"role": "system", "content": "be terse"}]
    with pytest.raises(ConversationError) as caught:
        to_anthropic([SystemMessage("be terse")])
    assert caught.value.problems == (ConversationProblem(ProblemKind.NO_MESSAGES, 1),)
    assert to_anthropic([SystemMessage("be terse")], validate=False) == {"system": "be terse", "messages": []}
    # A conversation the policy empties (a user turn of a video alone is not written) says so too.
    video = [UserMessage(VideoBlock(URLSource("https://example.com/v.mp4")))]
    with pytest.raises(ConversationError, match="on_unsupported='text'") as caught:
        to_openai(video, on_unsupported="drop")
    assert caught.value.problems == (ConversationProblem(ProblemKind.NO_MESSAGES, 1),)


@pytest.mark.parametrize("count", [5, 6])
def test_the_error_lists_five_problems_then_says_there_are_more(count: int) -> None:
    conversation: list[Msg] = []
    for index in range(count):
        conversation += [UserMessage(f"u{index}"), AssistantMessage([])]
    with pytest.raises(ConversationError) as caught:
        to_openai(conversation)
    assert len(caught.value.problems) == count
    text = str(caught.value)
    assert [f"messages[{2 * i + 1}]" in text for i in range(count)] == [True] * 5 + [False] * (count - 5)
    assert ("; …" in text) == (count > 5)


def test_the_errors_the_converters_raise_are_importable_beside_them() -> None:
    import agentscope_py
    import agentscope_py.interop as interop

    assert interop.ConversationError is agentscope_py.ConversationError
    assert interop.UnsupportedContentError is agentscope_py.UnsupportedContentError
    assert {"ConversationError", "UnsupportedContentError"} <= set(interop.__all__)


@pytest.mark.parametrize(
    "conversation",
    [
        # Blank text between the results an assistant message holds, and before the results of the
        # next: the writers leave it out, so no empty turn parts a call from its result.
        [UserMessage("q"), AssistantMessage(CALL_A, CALL_B, RESULT_A, TextBlock(""), RESULT_B)],
        [UserMessage("q"), AssistantMessage(CALL_A), AssistantMessage(TextBlock(" "), RESULT_A)],
        [UserMessage("q"), AssistantMessage(CALL_A, CALL_B), ToolResultMessage(RESULT_A, TextBlock(""), RESULT_B)],
        # after a TOOL message's results: no turn either (in an assistant message it may carry an audio id)
        [UserMessage("q"), AssistantMessage(CALL_A, CALL_B), ToolResultMessage(RESULT_A, TextBlock(" ")), ToolResultMessage(RESULT_B)],
    ],
    ids=["between", "before", "in a tool message", "after, in a tool message"],
)
def test_blank_text_beside_results_parts_no_call_from_its_result(conversation: list[Msg]) -> None:
    assert validate_conversation(conversation) == []
    assert repair_conversation(conversation).changes == ()  # nothing to repair: the real results stay
    assert [message for message in to_openai(conversation) if message["role"] == "user"] == [{"role": "user", "content": "q"}]
    assert to_openai(conversation) == to_openai(conversation, validate=False)
    written = to_anthropic(conversation)
    assert written == to_anthropic(conversation, validate=False)
    assert [message["role"] for message in written["messages"]] == ["user", "assistant", "user"]


@pytest.mark.parametrize(
    "conversation",
    [
        [UserMessage("q"), AssistantMessage(CALL_A, RESULT_A, TextBlock(""))],
        # the message's other call answered in the next message: the blank text, left out, parts nothing
        [UserMessage("q"), AssistantMessage(CALL_A, CALL_B, RESULT_A, TextBlock(" ")), ToolResultMessage(RESULT_B)],
    ],
    ids=["last", "before the next message's result"],
)
def test_blank_text_after_results_is_left_out_by_the_writers_and_their_checks(conversation: list[Msg]) -> None:
    # Sent alone it would be an empty assistant message, which both APIs refuse.
    for write in (to_openai, to_anthropic):
        assert write(conversation) == write(conversation, validate=False)
    # The check and the repair see the conversation the writers send: the real results stay.
    assert validate_conversation(conversation) == []
    assert repair_conversation(conversation).changes == ()
    assert [message["role"] for message in to_anthropic(conversation)["messages"]] == ["user", "assistant", "user"]
    assert [message["role"] for message in to_openai(conversation)][-1] == "tool"
