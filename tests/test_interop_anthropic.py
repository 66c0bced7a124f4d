"""Anthropic Messages: mapping, round trips both ways, policies, tool turns, SDK conformance."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Collection
from itertools import pairwise
from typing import Any

import pytest
from anthropic.types import Message, MessageParam, TextBlockParam
from hypothesis import given
from hypothesis import strategies as st
from interop_compare import as_anthropic_takes_them, comparable, conversations_for
from lines_run import lines_run
from provider_payloads import ANTHROPIC_UNREAD, anthropic_payloads
from sdk_types import conform, problems
from read_only import assert_plain

from agentscope_py import (
    AssistantMessage,
    AudioBlock,
    Base64Source,
    ContentBlock,
    ConversationError,
    DataBlock,
    DecodeError,
    HintBlock,
    ImageBlock,
    Msg,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolResultMessage,
    ToolResultState,
    ToolUseBlock,
    UnsupportedContentError,
    URLSource,
    UserMessage,
)
from agentscope_py.interop import _anthropic_whole_blocks as whole_blocks
from agentscope_py.interop import anthropic as anthropic_writer
from agentscope_py.interop import (
    ConversationProblem,
    ConversionNote,
    ProblemKind,
    RepairAction,
    from_anthropic,
    from_anthropic_response,
    from_openai,
    from_vercel_ai,
    repair_conversation,
    to_anthropic,
    to_openai,
)


def conforms(request: dict[str, Any], *, allow: Collection[str] = ()) -> None:
    """``system`` and every message are of the SDK's param types, closed: no key they do not define
    (but those ``allow`` names), no required key missing (see ``sdk_types``)."""
    if "system" in request:
        conform(request["system"], str | list[TextBlockParam], allow=allow)
    conform(request["messages"], list[MessageParam], allow=allow)
    for index, message in enumerate(request["messages"]):
        # A system message only after the first turn: leading instructions go to `system`.
        assert message["role"] in ("user", "assistant") or (message["role"] == "system" and index > 0)
    roles = [message["role"] for message in request["messages"] if message["role"] != "system"]
    assert all(a != b for a, b in pairwise(roles)), "user and assistant turns must alternate"


# -- worked examples ------------------------------------------------------------------

REQUEST: dict[str, Any] = {
    "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}],
    "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Use the tool.", "signature": "EqQBCkYIARgC"},
                {"type": "redacted_thinking", "data": "EmwKAhgBEgy3"},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny", "is_error": False},
                {"type": "text", "text": "And tomorrow?"},
            ],
        },
        {"role": "assistant", "content": "Also sunny."},
    ],
}


def test_reads_turns_into_messages() -> None:
    system, question, call, result, follow_up, answer = from_anthropic(REQUEST)
    assert isinstance(system, SystemMessage) and system.get_text_content() == "You are terse."
    assert system.metadata["anthropic"]["parts"] == {"0": {"cache_control": {"type": "ephemeral"}}}
    assert isinstance(question, UserMessage)
    assert call.content == (
        ThinkingBlock("Use the tool.", {"anthropic": {"signature": "EqQBCkYIARgC"}}),
        ThinkingBlock("", {"anthropic": {"type": "redacted_thinking", "data": "EmwKAhgBEgy3"}}),
        ToolUseBlock("toolu_1", "get_weather", {"city": "Paris"}),
    )
    assert isinstance(result, ToolResultMessage)
    assert result.content == (
        ToolResultBlock("toolu_1", "get_weather", TextBlock("sunny"), {"anthropic": {"is_error": False}}, ToolResultState.SUCCESS),
    )
    assert isinstance(follow_up, UserMessage) and follow_up.get_text_content() == "And tomorrow?"
    assert isinstance(answer, AssistantMessage)


def test_writes_the_request_back_exactly() -> None:
    out = to_anthropic(from_anthropic(REQUEST))
    assert out == REQUEST
    assert out.notes == ()
    conforms(out)


def test_a_bare_messages_list_is_accepted() -> None:
    assert from_anthropic(REQUEST["messages"])[0].get_text_content() == "Weather in Paris?"


def test_media_and_documents() -> None:
    user = UserMessage(
        DataBlock(Base64Source("image/png", "iVBO")),
        DataBlock(URLSource("https://e.com/cat.jpg")),
        DataBlock(Base64Source("application/pdf", "JVBE"), name="Report"),
        DataBlock(URLSource("https://e.com/a.pdf", "application/pdf")),
        DataBlock(Base64Source("text/plain", base64.b64encode(b"plain words").decode())),
    )
    out = to_anthropic([user])
    assert out["messages"][0]["content"] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
        {"type": "image", "source": {"type": "url", "url": "https://e.com/cat.jpg"}},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}, "title": "Report"},
        {"type": "document", "source": {"type": "url", "url": "https://e.com/a.pdf"}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "plain words"}},
    ]
    conforms(out)
    assert comparable(from_anthropic(out)) == comparable([user])


@pytest.mark.parametrize("system", [SystemMessage(""), SystemMessage(" \n"), SystemMessage([])])
def test_a_system_message_that_says_nothing_gives_no_system(system: SystemMessage) -> None:
    assert to_anthropic([system, UserMessage("hi")]) == {"messages": [{"role": "user", "content": "hi"}]}
    # An empty system given as such comes back as it came.
    request = {"system": [], "messages": [{"role": "user", "content": "hi"}]}
    assert to_anthropic(from_anthropic(request)) == request


def test_error_states_become_is_error() -> None:
    messages = [
        AssistantMessage(ToolUseBlock("a", "f", {}), ToolUseBlock("b", "f", {})),
        ToolResultMessage(ToolResultBlock.error("a", "boom"), ToolResultBlock("b", "f", TextBlock("ok"), state=ToolResultState.SUCCESS)),
    ]
    results = to_anthropic(messages)["messages"][1]["content"]
    assert results == [
        {"type": "tool_result", "tool_use_id": "a", "is_error": True, "content": "[ERROR] boom"},
        {"type": "tool_result", "tool_use_id": "b", "content": "ok"},
    ]


@pytest.mark.parametrize("state", [ToolResultState.ERROR, ToolResultState.DENIED, ToolResultState.INTERRUPTED])
def test_an_error_result_holds_text_only(state: ToolResultState) -> None:
    # The API: "all content must be type 'text' if 'is_error' is true".
    image = DataBlock(Base64Source("image/png", "iVBORw0KGgo="))
    messages = [
        UserMessage("shoot"),
        AssistantMessage(ToolUseBlock("a", "shot", {})),
        ToolResultMessage([ToolResultBlock("a", "shot", [TextBlock("failed"), image], state=state)]),
    ]
    with pytest.raises(
        UnsupportedContentError,
        match=re.escape("a DataBlock of image/png in an error result, which holds text only (messages[2].content[0].output[1])"),
    ):
        to_anthropic(messages)
    dropped = to_anthropic(messages, on_unsupported="drop")
    assert dropped["messages"][2]["content"] == [{"type": "tool_result", "tool_use_id": "a", "is_error": True, "content": "failed"}]
    assert [(n.message_index, n.block_index, n.output_index, n.action) for n in dropped.notes] == [(2, 0, 1, "dropped")]
    as_text = to_anthropic(messages, on_unsupported="text")["messages"][2]["content"][0]["content"]
    assert [part["type"] for part in as_text] == ["text", "text"]
    # A result that is no error holds its image.
    succeeded = [*messages[:2], ToolResultMessage([ToolResultBlock("a", "shot", [image], state=ToolResultState.SUCCESS)])]
    assert to_anthropic(succeeded)["messages"][2]["content"][0]["content"][0]["type"] == "image"


def test_blank_raw_arguments_with_no_input_are_written_as_an_empty_object() -> None:
    call = ToolUseBlock("c", "f", {}, content="  ")
    conversation = [
        UserMessage("hi"),
        AssistantMessage([call]),
        ToolResultMessage([ToolResultBlock("c", "f", [TextBlock("ok")])]),
    ]
    written = to_anthropic(conversation)["messages"]
    assert written[1]["content"] == [{"type": "tool_use", "id": "c", "name": "f", "input": {}}]


# -- rule 1: round trips -----------------------------------------------------------------


@given(anthropic_payloads())
def test_payload_round_trip(payload: dict[str, Any]) -> None:
    out = to_anthropic(from_anthropic(payload), validate=False)
    assert out == payload
    assert_plain(dict(out))  # carried fields too: the caller's to change


@given(anthropic_payloads(surrogates=False))
def test_output_conforms_to_the_sdk_types(payload: dict[str, Any]) -> None:
    # The payload's own fields the SDK does not define travel too: those are the payload's.
    conforms(to_anthropic(from_anthropic(payload), validate=False), allow=ANTHROPIC_UNREAD)


@given(conversations_for("anthropic").map(as_anthropic_takes_them))
def test_message_round_trip(messages: list[Msg]) -> None:
    out = to_anthropic(messages)
    conforms(out)
    assert comparable(from_anthropic(out)) == comparable(messages)


# -- rule 2: never silently lossy ------------------------------------------------------------

UNSUPPORTED = [
    (UserMessage(TextBlock("x"), AudioBlock(URLSource("https://e.com/a.wav"))), 1, "an AudioBlock by URL"),
    (UserMessage(DataBlock(Base64Source("audio/wav", "UklG"))), 0, "a DataBlock of audio/wav"),
    (AssistantMessage(HintBlock("h", "be brief")), 0, "a HintBlock"),
    (AssistantMessage(ThinkingBlock("no signature")), 0, "a ThinkingBlock without a signature"),
    (
        AssistantMessage(TextBlock("x"), ToolUseBlock("c", "f", {}, "{not json")), 1,
        "a ToolUseBlock whose arguments are not a JSON object",
    ),
    # The API takes images and documents from the user only.
    (AssistantMessage(DataBlock(Base64Source("image/png", "AAAA"))), 0, "a DataBlock of image/png in an assistant message"),
    (
        AssistantMessage(TextBlock("see"), ImageBlock(URLSource("https://e.com/cat.png"))), 1,
        "an ImageBlock by URL in an assistant message",
    ),
    (
        AssistantMessage(DataBlock(Base64Source("application/pdf", "JVBE"), name="r.pdf")), 0,
        "a DataBlock of application/pdf in an assistant message",
    ),
    # and JPEG, PNG, GIF and WebP images only
    (UserMessage(DataBlock(Base64Source("image/tiff", "SUkq"))), 0, "a DataBlock of image/tiff"),
]


@pytest.mark.parametrize(("message", "block_index", "block_type"), UNSUPPORTED)
def test_a_block_anthropic_cannot_hold_raises_naming_where(message: Msg, block_index: int, block_type: str) -> None:
    with pytest.raises(UnsupportedContentError) as caught:
        to_anthropic([UserMessage("hi"), message], validate=False)
    assert f"messages[1].content[{block_index}]" in str(caught.value)
    assert f"cannot hold {block_type} (" in str(caught.value)


def test_redacted_thinking_given_text_is_not_sent_as_its_old_data() -> None:
    request = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [
        {"type": "redacted_thinking", "data": "EmwK"}, {"type": "text", "text": "hello"}]}]}
    user, assistant = from_anthropic(request)
    redacted = assistant.content[0]
    assert isinstance(redacted, ThinkingBlock)
    edited = [user, assistant.with_content([ThinkingBlock("my own words", redacted.metadata), assistant.content[1]])]
    # The data is Anthropic's encryption of other thinking: the block is now unsigned thinking, refused.
    with pytest.raises(UnsupportedContentError, match=r"ThinkingBlock with text, read from redacted_thinking .*content\[0\]"):
        to_anthropic(edited)
    as_text = to_anthropic(edited, on_unsupported="text")
    assert as_text["messages"][1]["content"][0] == {"type": "text", "text": "[thinking] my own words"}
    assert to_anthropic([user, assistant]) == request


def test_drop_and_text_policies_record_their_choice() -> None:
    messages = [UserMessage(TextBlock("listen"), AudioBlock(URLSource("https://e.com/a.wav")))]
    dropped = to_anthropic(messages, on_unsupported="drop")
    assert dropped["messages"] == [{"role": "user", "content": "listen"}]
    assert dropped.notes == (ConversionNote(0, 1, "audio", "dropped", "Anthropic Messages"),)
    as_text = to_anthropic(messages, on_unsupported="text")
    assert as_text["messages"][0]["content"][1] == {"type": "text", "text": "[audio: https://e.com/a.wav]"}
    assert as_text.notes[0].action == "as_text"


def test_media_in_an_assistant_turn_follows_the_policy() -> None:
    messages = [UserMessage("draw"), AssistantMessage(TextBlock("here"), DataBlock(URLSource("https://e.com/cat.png")))]
    dropped = to_anthropic(messages, on_unsupported="drop")
    assert dropped["messages"][1] == {"role": "assistant", "content": "here"}
    assert dropped.notes == (ConversionNote(1, 1, "data", "dropped", "Anthropic Messages"),)
    as_text = to_anthropic(messages, on_unsupported="text")
    assert as_text["messages"][1]["content"][1] == {"type": "text", "text": "[data: https://e.com/cat.png]"}
    assert from_anthropic(as_text)[1].get_text_content() == "here\n[data: https://e.com/cat.png]"


def test_a_late_system_message_is_a_system_message_at_its_place() -> None:
    # The API takes system messages in `messages` (the SDK's MessageParam has SystemMessageParam): they
    # apply from there on.  Leading ones still go to `system`.
    messages = [SystemMessage("be terse"), UserMessage("hi"), AssistantMessage("hello"), SystemMessage("now be verbose"), UserMessage("why?")]
    out = to_anthropic(messages)
    assert out == {
        "system": "be terse",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
            {"role": "system", "content": "now be verbose"},
            {"role": "user", "content": "why?"},
        ],
    }
    assert out.notes == ()
    conforms(out)
    back = from_anthropic(out)
    assert [type(m) for m in back] == [SystemMessage, UserMessage, AssistantMessage, SystemMessage, UserMessage]
    assert back[3].get_text_content() == "now be verbose" and to_anthropic(back) == out
    blocks = {"messages": [{"role": "user", "content": "hi"}, {"role": "system", "content": [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}]}]}
    assert to_anthropic(from_anthropic(blocks), validate=False) == blocks
    two = {"messages": [{"role": "user", "content": "hi"}, {"role": "system", "content": "a"}, {"role": "system", "content": "b"}]}
    assert to_anthropic(from_anthropic(two), validate=False) == two  # not merged: each applies from its place
    # First in `messages`, a system message is the conversation's instructions: written as `system`.
    assert to_anthropic(from_anthropic({"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}]})) == {
        "system": "s", "messages": [{"role": "user", "content": "hi"}]
    }


# -- rule 3: tool results into the next user turn, same-role turns merged ------------------------


def test_results_go_first_in_the_next_user_turn_and_turns_alternate() -> None:
    messages = [
        UserMessage("a"),
        UserMessage("b"),
        AssistantMessage(TextBlock("checking"), ToolUseBlock("t", "f", {"q": 1}), ToolResultBlock("t", "f", TextBlock("1"))),
        UserMessage("thanks"),
        AssistantMessage("done"),
        AssistantMessage("really"),
    ]
    out = to_anthropic(messages)
    assert [m["role"] for m in out["messages"]] == ["user", "assistant", "user", "assistant"]
    assert out["messages"][0]["content"] == [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert out["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "t", "content": "1"},
        {"type": "text", "text": "thanks"},
    ]
    conforms(out)
    back = from_anthropic(out)
    assert [type(m) for m in back] == [UserMessage, AssistantMessage, ToolResultMessage, UserMessage, AssistantMessage]


# -- rule 6 ----------------------------------------------------------------------------------


def test_an_orphan_result_raises_and_points_at_repair() -> None:
    messages = [UserMessage("hi"), ToolResultMessage.of("nope", "f", "x")]
    with pytest.raises(ConversationError, match="repair_conversation"):
        to_anthropic(messages)


# -- bad input ------------------------------------------------------------------------------

BAD: list[tuple[Any, str]] = [
    (3, ""),
    ({}, ""),
    ({"messages": {}}, "messages"),
    ({"messages": [], "system": 3}, "system"),
    ({"messages": [], "system": [{"type": "image"}]}, "system[0].type"),
    ({"messages": [{"role": "developer", "content": "x"}]}, "messages[0].role"),
    ({"messages": [{"role": "system", "content": [{"type": "image"}]}]}, "messages[0].content[0].type"),
    ({"messages": [{"role": "user", "content": "x"}, {"role": "system"}]}, "messages[1]"),
    ({"messages": [{"role": "user"}]}, "messages[0]"),
    ({"messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "base64"}}]}]}, "messages[0].content[0].source"),
    ({"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": "{}"}]}]}, "messages[0].content[0].input"),
    ({"messages": [{"role": "assistant", "content": [{"type": "thinking", "thinking": "x"}]}]}, "messages[0].content[0]"),
    ({"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": "yes"}]}]}, "messages[0].content[0].is_error"),
    ({"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text"}]}]}]}, "messages[0].content[0].content[0]"),
]


@pytest.mark.parametrize(("payload", "path"), BAD)
def test_malformed_input_raises_decode_error_with_the_path(payload: Any, path: str) -> None:
    with pytest.raises(DecodeError) as caught:
        from_anthropic(payload)
    assert caught.value.path == path


@pytest.mark.parametrize(
    "block",
    [
        {"type": "tool_use", "id": "t", "name": "f", "input": {}},
        {"type": "document", "source": {"type": "content", "content": "x"}},
        {"type": "thinking", "thinking": "x", "signature": "s"},
        # Blocks of types we read nothing of are kept whole in a turn, not inside a result.
        {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "search_result", "source": "s", "title": "t", "content": []}]},
    ],
)
def test_content_we_cannot_represent_is_refused_clearly(block: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedContentError, match=r"messages\[0\]\.content\[0\]"):
        from_anthropic({"messages": [{"role": "user", "content": [block]}]})


# -- blocks we have no block for: kept whole, in place -----------------------------------------

_SERVER_BLOCKS: list[dict[str, Any]] = [
    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "paris"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": [
        {"type": "web_search_result", "url": "https://example.com/w", "title": "W", "encrypted_content": "Eqg"}]},
    {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_02",
     "content": {"type": "code_execution_result", "stdout": "4", "stderr": "", "return_code": 0, "content": []}},
    {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "echo", "server_name": "s", "input": {}},
    {"type": "container_upload", "file_id": "file_01"},
    {"type": "search_result", "source": "https://example.com/doc", "title": "Doc",
     "content": [{"type": "text", "text": "Paris is in France."}]},
    {"type": "brand_new_block", "x": [1, {"y": None}]},
]


@st.composite
def _with_whole_blocks(draw: st.DrawFn) -> dict[str, Any]:
    """A request with blocks of types we read nothing of put anywhere in its turns' content lists."""
    payload = draw(anthropic_payloads())
    for message in payload["messages"]:
        if message["role"] != "system" and isinstance(message["content"], list):
            for _ in range(draw(st.integers(0, 3))):
                at = draw(st.integers(0, len(message["content"])))
                message["content"].insert(at, draw(st.sampled_from(_SERVER_BLOCKS)))
    return payload


@given(_with_whole_blocks())
def test_blocks_we_read_nothing_of_go_back_whole_and_in_place(payload: dict[str, Any]) -> None:
    read = from_anthropic(payload)
    assert to_anthropic(read, validate=False) == payload
    # No other format sees them: they are metadata.
    for message in read:
        assert all(not isinstance(block, dict) for block in message.content)


def _read_assistant(content: list[dict[str, Any]]) -> Msg:
    (message,) = from_anthropic([{"role": "assistant", "content": content}])
    return message


def _written(message: Msg) -> list[dict[str, Any]]:
    content = to_anthropic([UserMessage("q"), message], validate=False)["messages"][1]["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def test_kept_blocks_follow_the_block_they_stood_before_when_the_message_is_edited() -> None:
    search, found = _SERVER_BLOCKS[:2]
    thought = {"type": "thinking", "thinking": "Look it up.", "signature": "EqQB"}
    one, two = {"type": "text", "text": "one"}, {"type": "text", "text": "two"}
    read = _read_assistant([thought, search, found, one, two, search])
    assert read.metadata["anthropic"]["blocks"] == {"1": [search, found], "3": [search]}
    assert _written(read) == [thought, search, found, one, two, search]
    # A block put in front: they stay before "one", and after the last block.
    assert _written(read.with_content([TextBlock("first"), *read.content])) == [
        {"type": "text", "text": "first"}, thought, search, found, one, two, search]
    # "one" changed: where it stood.  "one" removed: before what now stands there.
    assert _written(read.with_content([read.content[0], TextBlock("uno"), read.content[2]])) == [
        thought, search, found, {"type": "text", "text": "uno"}, two, search]
    assert _written(read.with_content([read.content[0], read.content[2]])) == [thought, search, found, two, search]
    # Everything removed: all of them, in order.
    assert _written(read.with_content([])) == [search, found, search]


def test_kept_blocks_of_a_message_cut_by_its_results_go_into_its_own_turns() -> None:
    search = _SERVER_BLOCKS[0]
    read = _read_assistant([{"type": "text", "text": "a"}, search, {"type": "text", "text": "b"}, search])
    call = ToolUseBlock("toolu_1", "f", {})
    result = ToolResultBlock("toolu_1", "f", [TextBlock("ok")])
    edited = read.with_content([read.content[0], call, result, read.content[1]])
    assert to_anthropic([UserMessage("q"), edited])["messages"][1:] == [
        {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]},
        {"role": "assistant", "content": [search, {"type": "text", "text": "b"}, search]},
    ]


def test_malformed_kept_blocks_are_written_as_far_as_they_are_well_formed() -> None:
    kept = {"blocks": {"1": [{"type": "x"}], "01": [{"type": "y"}], "2": "no run", "3": [5], "²": [{"type": "z"}]},
            "blocks_before": {"1": 7}}
    message = AssistantMessage(TextBlock("a"), metadata={"anthropic": kept})
    assert _written(message) == [{"type": "text", "text": "a"}, {"type": "x"}, {"type": "y"}]
    # A block that names no type (none, null, a number, "") is no block the API takes.
    nameless = {"blocks": {"1": [{"foo": 1}, {"type": None}, {"type": 5}, {"type": ""}, {"type": "x"}]}}
    assert _written(AssistantMessage(TextBlock("a"), metadata={"anthropic": nameless})) == [{"type": "text", "text": "a"}, {"type": "x"}]
    # and a message that holds nothing else is empty, as the check says
    alone = AssistantMessage([], metadata={"anthropic": {"blocks": {"0": [{"type": 5}]}}})
    with pytest.raises(ConversationError, match=r"messages\[1\]: assistant message with no content"):
        to_anthropic([UserMessage("hi"), alone])


def test_a_copy_of_the_block_a_run_stood_before_put_in_front_moves_nothing() -> None:
    search, found = _SERVER_BLOCKS[:2]
    thought = {"type": "thinking", "thinking": "Look it up.", "signature": "EqQB"}
    ok = {"type": "text", "text": "ok"}
    read = _read_assistant([thought, search, found, ok])
    # The run stood before "ok" at index 1: the "ok" at or after that index is its own, not the copy.
    assert _written(read.with_content([TextBlock("ok"), *read.content])) == [ok, thought, search, found, ok]
    # Blocks removed in front: the "ok" before the index it had is found.
    assert _written(read.with_content([read.content[1]])) == [search, found, ok]
    assert _written(read.with_content([read.content[1], TextBlock("ok")])) == [ok, search, found, ok]


@pytest.mark.parametrize("block", [
    {"type": "text", "text": "x"},
    {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
    {"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}},
    {"type": "tool_use", "id": "toolu_x", "name": "rm", "input": {}},
    {"type": "tool_result", "tool_use_id": "toolu_x", "content": "x"},
    {"type": "thinking", "thinking": "x", "signature": "s"},
    {"type": "redacted_thinking", "data": "x"},
], ids=lambda block: block["type"])
def test_a_kept_block_of_a_type_we_read_is_malformed_and_not_written(block: dict[str, Any]) -> None:
    # Reading keeps none of these: such metadata is hand-written, and written it would slip past the
    # conversation check (a tool call nothing answers, a result of no call).
    upload = _SERVER_BLOCKS[4]
    kept = {"anthropic": {"blocks": {"1": [block, upload, block]}}}
    for message in (AssistantMessage("hi", metadata=kept), UserMessage("hi", metadata=kept)):
        assert to_anthropic([message])["messages"][0]["content"] == [{"type": "text", "text": "hi"}, upload]


def test_a_null_caller_on_a_kept_block_reads_as_absent() -> None:
    search, found = _SERVER_BLOCKS[:2]
    answer = Message.model_validate({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [search, found, {"type": "text", "text": "In Paris."}],
        "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 4},
    })
    question = {"role": "user", "content": "Where?"}
    # A history kept as the SDK's blocks, or dumped to JSON: a null caller on each server block, which
    # a request cannot hold (its caller is an object).
    for blocks in (answer.content, [block.model_dump() for block in answer.content]):
        request = to_anthropic(from_anthropic([question, {"role": "assistant", "content": blocks}]))
        assert [block.get("caller", "absent") for block in request["messages"][1]["content"][:2]] == ["absent"] * 2
        conforms(request)
    request = to_anthropic([UserMessage("Where?"), from_anthropic_response(answer.model_dump())])
    assert [block.get("caller", "absent") for block in request["messages"][1]["content"][:2]] == ["absent"] * 2
    conforms(request)
    # A caller given, and a null a request can hold, go back as they came.
    called = {**search, "caller": {"type": "direct"}, "cache_control": None}
    given = {"messages": [question, {"role": "assistant", "content": [called, found]}]}
    assert to_anthropic(from_anthropic(given)) == given
    conforms(given)


def _lines_run_writing(action: Callable[[], object], limit: int | None = None) -> int:
    """The lines of the Anthropic writer and of the kept blocks' module that ``action`` runs."""
    return lines_run({anthropic_writer.__file__, whole_blocks.__file__}, action, limit)


def test_writing_kept_blocks_costs_a_bounded_multiple_of_writing_the_blocks_alone() -> None:
    # Not timed: counted.  It was quadratic in the runs (their places sorted and scanned for each block,
    # and a fingerprint found nowhere looked for to the end of the content, run after run).
    count = 2000
    texts = [{"type": "text", "text": f"t{index}"} for index in range(count)]
    question = UserMessage("q")
    alone = _read_assistant(texts)
    limit = 4 * _lines_run_writing(lambda: to_anthropic([question, alone], validate=False))
    upload = _SERVER_BLOCKS[4]
    read = _read_assistant([block for text in texts for block in (upload, text)])  # a run before each block
    changed = read.with_content([TextBlock(f"u{index}") for index in range(count)])  # no block found
    bogus = AssistantMessage(alone.content, metadata={"anthropic": {  # fingerprints of no block
        "blocks": {str(index): [upload] for index in range(count)},
        "blocks_before": {str(index): "x" for index in range(count)}}})
    for message in (read, changed, bogus):
        written: dict[str, Any] = {}

        def write(message: Msg = message, written: dict[str, Any] = written) -> None:
            written.update(to_anthropic([question, message], validate=False))

        assert _lines_run_writing(write, limit) <= limit
        assert written["messages"][1]["content"][::2] == [upload] * count


def test_a_user_turn_of_results_and_a_search_result_reads_and_goes_back_as_it_came() -> None:
    search_result = _SERVER_BLOCKS[5]
    request = {"messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}},
                                          {"type": "tool_use", "id": "t2", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"},
                                     {"type": "tool_result", "tool_use_id": "t2"}, search_result]},
    ]}
    read = from_anthropic(request)
    assert [type(message).__name__ for message in read[2:]] == ["ToolResultMessage", "UserMessage"]
    assert read[3].content == ()
    assert to_anthropic(read) == request  # validated: the message holding only the kept block is not empty


def test_a_thinking_block_with_a_null_signature_reads_as_unsigned() -> None:
    read = _read_assistant([{"type": "thinking", "thinking": "hmm", "signature": None, "x": 1}])
    assert read.content == (ThinkingBlock("hmm", {"anthropic": {"x": 1}}),)
    with pytest.raises(UnsupportedContentError, match="without a signature"):
        to_anthropic([UserMessage("q"), read])


def test_a_files_api_source_reads_as_its_id_and_goes_back_as_a_file_source() -> None:
    request = {"messages": [{"role": "user", "content": [
        {"type": "image", "source": {"type": "file", "file_id": "file_011CN"}},
        {"type": "document", "source": {"type": "file", "file_id": "file_02"}, "title": "report.pdf"},
        {"type": "text", "text": "Compare them."},
    ]}]}
    (question,) = from_anthropic(request)
    image, document, _ = question.content
    assert isinstance(image, DataBlock) and image.source == URLSource("file_011CN")
    assert isinstance(document, DataBlock) and (document.source, document.name) == (URLSource("file_02"), "report.pdf")
    assert to_anthropic([question]) == request
    conforms(to_anthropic([question]))
    # an id only Anthropic knows, no URL to fetch
    with pytest.raises(UnsupportedContentError, match=r"^OpenAI Chat Completions cannot hold a DataBlock by URL \(messages\[0\]\.content\[0\]\): 'file_011CN' has no scheme, so it is a file id"):
        to_openai([question])
    # Another provider's file id is none Anthropic knows: not sent as a file source.
    with pytest.raises(UnsupportedContentError, match=r"^Anthropic Messages cannot hold a DataBlock by URL \(messages\[0\]\.content\[0\]\): 'file-abc' has no scheme, so it is a file id"):
        to_anthropic([UserMessage(DataBlock(URLSource("file-abc")))])


def test_blank_text_is_left_out_and_an_empty_user_turn_is_refused() -> None:
    # An OpenAI-compatible server's answer: empty content beside the tool call.
    (question, answer) = from_openai([
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
    ])
    request = to_anthropic([question, answer, ToolResultMessage.of("c1", "get_weather", "sunny")])
    assert request["messages"][1] == {"role": "assistant", "content": [
        {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {}}]}
    conforms(request)
    with pytest.raises(ConversationError, match=r"messages\[1\]: user or tool message with no content") as caught:
        to_anthropic([UserMessage("hi"), UserMessage(" \n"), AssistantMessage("ok")])
    assert caught.value.problems == (ConversationProblem(ProblemKind.EMPTY_USER_MESSAGE, 1),)
    repaired = repair_conversation([UserMessage("hi"), UserMessage(" \n"), AssistantMessage("ok")])
    assert [c.action for c in repaired.changes] == [RepairAction.DROPPED_EMPTY_USER_MESSAGE]
    assert to_anthropic(repaired.messages)["messages"] == [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]
    # Inside a tool result too: blank text is left out of its content, and a result of it alone has none.
    called = [UserMessage("q"), AssistantMessage(ToolUseBlock("toolu_1", "f", {}))]
    cases: list[tuple[list[ContentBlock], object]] = [
        ([TextBlock(""), DataBlock(Base64Source("image/png", "iVBORw0KGgo="))], [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]),
        ([TextBlock("a"), TextBlock("  ")], "a"),
        ([TextBlock("")], None),
    ]
    for output, content in cases:
        written = to_anthropic([*called, ToolResultMessage([ToolResultBlock("toolu_1", "f", output)])])
        (result,) = written["messages"][2]["content"]
        assert result.get("content") == content
        conforms(written)
    # OpenAI takes an empty user message.
    assert to_openai([UserMessage(""), AssistantMessage("ok")]) == [
        {"role": "user", "content": ""}, {"role": "assistant", "content": "ok"}]


# -- fields we do not read travel ---------------------------------------------------------------


def test_a_block_s_fields_we_do_not_read_travel() -> None:
    request: dict[str, Any] = {
        "system": [{"type": "text", "text": "rules", "x_origin": "policy"}],
        "messages": [
            {"role": "user", "content": [
                {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"},
                 "transformations": {"oversized_image": "downsize"}},
                {"type": "document", "source": {"type": "url", "url": "https://example.com/d.pdf"}, "x_pages": [1, 2]},
                {"type": "text", "text": "what is this?", "x_lang": "en"},
            ]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "EqQB", "x_budget": 3},
                {"type": "redacted_thinking", "data": "EmwK", "x_kind": "safety"},
                {"type": "tool_use", "id": "t", "name": "f", "input": {}, "x_strict": True},
            ]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok", "x_ms": 12}]},
        ],
    }
    system, user, assistant, result = from_anthropic(request)
    assert user.metadata["anthropic"]["parts"] == {
        "0": {"transformations": {"oversized_image": "downsize"}}, "1": {"x_pages": [1, 2]}, "2": {"x_lang": "en"}}
    thought, redacted = assistant.get_content_blocks(ThinkingBlock)
    assert thought.metadata == {"anthropic": {"signature": "EqQB", "x_budget": 3}}
    assert redacted.metadata == {"anthropic": {"type": "redacted_thinking", "data": "EmwK", "x_kind": "safety"}}
    assert assistant.get_content_blocks(ToolUseBlock)[0].metadata == {"anthropic": {"x_strict": True}}
    assert result.get_content_blocks(ToolResultBlock)[0].metadata == {"anthropic": {"x_ms": 12}}
    assert to_anthropic([system, user, assistant, result]) == request
    # The image's transformations, which the SDK declares, go out as the SDK takes them.
    conforms({"messages": [request["messages"][0]]}, allow=("x_pages", "x_lang"))
    # What we write wins over a kept field of the same name.
    edited = ToolUseBlock("t2", "g", {"a": 1}, metadata={"anthropic": {"input": {}, "cache_control": {"type": "ephemeral"}}})
    assert to_anthropic([UserMessage("q"), AssistantMessage(edited)], validate=False)["messages"][1]["content"] == [
        {"type": "tool_use", "id": "t2", "name": "g", "input": {"a": 1}, "cache_control": {"type": "ephemeral"}}]


# -- SDK objects where the JSON object is expected ---------------------------------------------------


def test_the_sdk_s_own_tool_loop_reads() -> None:
    answer = Message.model_validate({
        "id": "m", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "tool_use",
        "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1},
        "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "EqQB"},
            {"type": "text", "text": "Let me check.", "citations": None},
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}},
        ],
    })
    # As the SDK's documentation builds the next request: the answer's blocks, as they are.
    request = {"messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": answer.content},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]},
    ]}
    as_json = {"messages": [
        request["messages"][0],
        {"role": "assistant", "content": [block.model_dump(mode="json", exclude_unset=True) for block in answer.content]},
        request["messages"][2],
    ]}
    assert comparable(from_anthropic(request)) == comparable(from_anthropic(as_json))
    assert to_anthropic(from_anthropic(request)) == as_json


# -- a message the policy emptied --------------------------------------------------------------


def test_a_message_the_policy_emptied_within_a_turn_of_others_is_absent() -> None:
    call, result = AssistantMessage(ToolUseBlock("a", "f", {})), ToolResultMessage.of("a", "f", "ok")
    written = {"messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "ok"}]},
    ]}
    audio = [UserMessage("hi"), call, UserMessage(AudioBlock(URLSource("https://example.com/a.wav"))), result]
    assert to_anthropic(audio, on_unsupported="drop") == written
    blank_late_system = [UserMessage("hi"), call, SystemMessage(" "), result]
    assert to_anthropic(blank_late_system) == written
    # A system message parts a call from its result, as any message would: refused, not moved.
    with pytest.raises(ConversationError, match="has no result right after it"):
        to_anthropic([UserMessage("hi"), call, SystemMessage("be terse"), result])
    # A turn of nothing else is written empty, and refused; repairing the messages as given cannot
    # help, so the error points to the policy that leaves a note instead.
    emptied_turn = [UserMessage("hi"), call, result, AssistantMessage("ok"), audio[2]]
    with pytest.raises(ConversationError, match="pass on_unsupported='text' to leave a note") as caught:
        to_anthropic(emptied_turn, on_unsupported="drop")
    assert caught.value.problems == (ConversationProblem(ProblemKind.EMPTY_USER_MESSAGE, 4),)
    assert to_anthropic(emptied_turn, on_unsupported="text")["messages"][-1] == {
        "role": "user", "content": "[audio: https://example.com/a.wav]"
    }
    # A problem in the messages as given is the caller's to repair: no word of the policy.
    with pytest.raises(ConversationError, match=r"to fix what can be fixed, or pass validate=False"):
        to_anthropic([UserMessage("hi"), call], on_unsupported="drop")


def test_tool_ids_the_api_refuses_are_rewritten_alike_in_call_and_result() -> None:
    # The API answers 400 to an id outside [A-Za-z0-9_-]+; OpenAI-compatible servers (Kimi) write such ids.
    # The last id is what the first becomes: the first then gets a longer digest.
    # An empty id is refused too (it matches no id the API takes).
    ids = ["functions.read:0", "functions_read_0", "functions read 0", "call_ok-1", "工具", "functions_read_0_c216cab2", ""]
    calls = AssistantMessage(*(ToolUseBlock(call_id, "read", {}) for call_id in ids))
    results = ToolResultMessage(*(ToolResultBlock(call_id, "read", TextBlock("x")) for call_id in ids))
    payload = to_anthropic([UserMessage("go"), calls, results])
    written = [block["id"] for block in payload["messages"][1]["content"]]
    answered = [block["tool_use_id"] for block in payload["messages"][2]["content"]]
    assert written == answered and len(set(written)) == len(ids)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", call_id) for call_id in written)
    assert written[1] == "functions_read_0" and written[3] == "call_ok-1"  # ids the API takes stay as they are
    assert written[0].startswith("functions_read_0_c216cab2") and written[0] != written[5] == ids[5]
    assert written[2].startswith("functions_read_0_") and written[6] == "_e3b0c442"
    conforms(payload)
    assert to_anthropic([UserMessage("go"), calls, results]) == payload  # the same every time


def test_an_id_an_earlier_turn_used_is_written_anew_with_its_results() -> None:
    # Some OpenAI-compatible servers number each answer's calls anew (call_0 every time); the API
    # wants each tool_use id once in a request ("tool_use ids must be unique").
    def answer(city: str, call_id: str = "call_0") -> list[Msg]:
        return [
            AssistantMessage(ToolUseBlock(call_id, "get_weather", {"city": city})),
            ToolResultMessage(ToolResultBlock(call_id, "get_weather", TextBlock(f"sun in {city}"))),
        ]

    taken = answer("Oslo", "call_0_2")  # an id the new one must not become
    history = [UserMessage("weather?"), *answer("Paris"), *taken, *answer("Rome"), *answer("Nice")]
    payload = to_anthropic(history)
    written = [(block["type"], block.get("id") or block.get("tool_use_id")) for turn in payload["messages"][1:] for block in turn["content"]]
    assert written == [
        ("tool_use", "call_0"), ("tool_result", "call_0"),
        ("tool_use", "call_0_2"), ("tool_result", "call_0_2"),
        ("tool_use", "call_0_3"), ("tool_result", "call_0_3"),
        ("tool_use", "call_0_4"), ("tool_result", "call_0_4"),
    ]
    conforms(payload)
    # Calls of one turn sharing an id stay so: the check refuses them, and a payload read so goes back as it came.
    twice = AssistantMessage(ToolUseBlock("c", "f", {}), ToolUseBlock("c", "f", {}))
    written_twice = to_anthropic([UserMessage("go"), twice], validate=False)["messages"][1]["content"]
    assert [block["id"] for block in written_twice] == ["c", "c"]


def test_consecutive_assistant_messages_are_checked_as_the_one_turn_they_are_written_as() -> None:
    # The API wants turns to alternate, so the two messages are one turn: the result right after
    # it answers the call, and two calls of it sharing an id are the duplicates they are there.
    call = AssistantMessage(ToolUseBlock("toolu_1", "get_weather", {"city": "Paris"}))
    said = AssistantMessage("Checking the forecast.")
    result = ToolResultMessage(ToolResultBlock("toolu_1", "get_weather", TextBlock("sunny")))
    payload = to_anthropic([UserMessage("Weather?"), call, said, result])
    assert payload == to_anthropic([UserMessage("Weather?"), call, said, result], validate=False)
    assert [block["type"] for block in payload["messages"][1]["content"]] == ["tool_use", "text"]
    with pytest.raises(ConversationError, match=r"messages\[2\]\.content\[0\]: tool call 'toolu_1' has the id of another call of its turn"):
        to_anthropic([UserMessage("Weather?"), call, call, result, result])
    # OpenAI writes each message as it is: there the text parts the call from its result.
    with pytest.raises(ConversationError, match="tool call 'toolu_1' has no result right after it"):
        to_openai([UserMessage("Weather?"), call, said, result])


def test_a_webp_image_is_an_image_block() -> None:
    # The API reads JPEG, PNG, GIF and WebP images.
    msg = UserMessage([DataBlock(Base64Source("image/webp", "UklGRg=="))])
    assert to_anthropic([msg])["messages"] == [
        {"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/webp", "data": "UklGRg=="}}
        ]}
    ]


def test_a_plain_text_document_by_url_is_unsupported() -> None:
    # A document by URL is a PDF to the API: plain text goes only inline.
    msg = UserMessage([DataBlock(URLSource("https://example.com/notes.txt", "text/plain"))])
    with pytest.raises(UnsupportedContentError, match=r"^Anthropic Messages cannot hold a DataBlock by URL \(text/plain\) \(messages\[0\]\.content\[0\]\)"):
        to_anthropic([msg])


# -- media types: told by a URL's file extension, matched whatever their case ----------------------


def test_a_url_is_written_as_the_block_its_file_extension_names() -> None:
    request = to_anthropic([UserMessage(DataBlock(URLSource("https://x/a.pdf"), name="A"), DataBlock(URLSource("https://x/cat.PNG")))])
    assert request["messages"][0]["content"] == [
        {"type": "document", "source": {"type": "url", "url": "https://x/a.pdf"}, "title": "A"},
        {"type": "image", "source": {"type": "url", "url": "https://x/cat.PNG"}},
    ]
    conforms(request)
    wav = UserMessage("listen", DataBlock(URLSource("https://x/a.wav")))
    with pytest.raises(UnsupportedContentError, match=r"\(messages\[0\]\.content\[1\]\): its file extension says audio/wav"):
        to_anthropic([wav])
    assert to_anthropic([wav], on_unsupported="drop")["messages"][0]["content"] == "listen"


def test_a_last_assistant_turn_goes_without_the_whitespace_that_ends_it() -> None:
    # An answer cut at max_tokens, sent back to be continued: the API refuses the whitespace at its end.
    cut = AssistantMessage("The three reasons are:\n\n1. ")
    assert to_anthropic([UserMessage("Give three reasons."), cut])["messages"][-1] == {
        "role": "assistant", "content": "The three reasons are:\n\n1."}
    listed = AssistantMessage(TextBlock("Look: "), DataBlock(URLSource("https://e.com/cat.png")), TextBlock("and \n"))
    written = to_anthropic([UserMessage("q"), listed], on_unsupported="drop")["messages"][-1]["content"]
    assert written[-1] == {"type": "text", "text": "and"} and written[0] == {"type": "text", "text": "Look: "}
    # Not a turn the model does not go on from.
    assert to_anthropic([UserMessage("q"), cut, UserMessage("go on")])["messages"][1]["content"] == cut.get_text_content()


def test_a_data_url_is_sent_as_the_inline_data_it_holds() -> None:
    # The API fetches a url source: one of inline data it could not fetch.
    request = to_anthropic([UserMessage(
        DataBlock(URLSource("data:image/png;base64,iVBORw0KGgo=")),
        DataBlock(URLSource("data:application/pdf;base64,JVBERi0="), name="Report"),
        DataBlock(URLSource("data:text/plain;base64,aGk=")),
    )])
    assert request["messages"][0]["content"] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}, "title": "Report"},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "hi"}},
    ]
    conforms(request)
    image = from_anthropic(request)[0].content[0]
    assert isinstance(image, DataBlock) and image.source == Base64Source("image/png", "iVBORw0KGgo=")
    with pytest.raises(UnsupportedContentError, match=r"\(messages\[0\]\.content\[0\]\): its data is not valid base64"):
        to_anthropic([UserMessage(DataBlock(URLSource("data:text/plain;base64,@@@")))])
    # Parameters, a scheme in capitals, and data percent-encoded rather than in base64.
    written = to_anthropic([UserMessage(
        DataBlock(URLSource("DATA:image/png;name=cat.png;base64,iVBORw0KGgo=")),
        DataBlock(URLSource("data:text/plain;charset=utf-8,caf%C3%A9")),
    )])["messages"][0]["content"]
    assert written == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "café"}},
    ]
    with pytest.raises(UnsupportedContentError):  # no data at all: nothing to send, and no URL to fetch
        to_anthropic([UserMessage(DataBlock(URLSource("data:image/png")))])


def test_inline_data_whose_media_type_has_parameters_goes_as_the_bare_type() -> None:
    # The data: URL readers of the other formats keep a URL's parameters in the media type, so that
    # the URL goes back to them as it came; the API takes the type without them, as for a data: URL.
    url = "data:image/png;name=shot.png;base64,iVBORw0KGgo="
    for read in (
        from_openai([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}]),
        from_vercel_ai([{"role": "user", "content": [{"type": "image", "image": url}]}]),
    ):
        assert to_anthropic(read)["messages"][0]["content"] == [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
        ]
    request = to_anthropic([UserMessage(
        DataBlock(Base64Source("application/pdf; name=a.pdf", "JVBERi0=")),
        DataBlock(Base64Source("Text/Plain;charset=utf-8", base64.b64encode(b"hi").decode())),
    )])
    assert request["messages"][0]["content"] == [
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "hi"}},
    ]
    conforms(request)


def test_an_image_by_a_url_that_names_another_type_goes_back_as_it_came() -> None:
    request = {"messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "https://x/scan.pdf"}}]}]}
    assert to_anthropic(from_anthropic(request)) == request


@pytest.mark.parametrize("media_type", ["iVBORw0KGgo=", "data:"])
def test_a_media_type_that_is_none_is_refused_when_read(media_type: str) -> None:
    # to_anthropic refuses inline data of such a type (as when Base64Source's arguments are swapped):
    # read, the payload could not go back.
    image = {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": "AA=="}}
    with pytest.raises(DecodeError, match=r"expected a media type such as 'image/png'") as caught:
        from_anthropic([{"role": "user", "content": [image]}])
    assert caught.value.path == "messages[0].content[0].source.media_type"


def test_a_media_type_with_whitespace_around_it_is_read_and_written_without() -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": " image/png\n", "data": "AA=="}}
    read = from_anthropic([{"role": "user", "content": [image]}])
    assert to_anthropic(read)["messages"][0]["content"][0]["source"]["media_type"] == "image/png"


def test_media_types_match_whatever_their_case_and_go_as_the_api_spells_them() -> None:
    text = base64.b64encode(b"notes").decode()
    request = to_anthropic([UserMessage(
        DataBlock(Base64Source("IMAGE/PNG", "iVBO")),
        DataBlock(Base64Source("Application/PDF", "JVBE")),
        DataBlock(Base64Source("Text/Plain", text)),
        DataBlock(Base64Source("image/JPG", "/9j/")),  # JPEG by a name the API does not take
    )])
    assert request["messages"][0]["content"] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/"}},
    ]
    conforms(request)


@pytest.mark.parametrize(
    ("data", "said"),
    [("!!!", "its data is not valid base64"), (base64.b64encode(b"\xff\xfe").decode(), "its data is not UTF-8 text")],
)
def test_plain_text_that_does_not_decode_is_refused_saying_why(data: str, said: str) -> None:
    with pytest.raises(UnsupportedContentError, match=rf"\(messages\[0\]\.content\[0\]\): {said}"):
        to_anthropic([UserMessage(DataBlock(Base64Source("text/plain", data)))])


def test_a_file_by_id_in_another_message_is_refused_saying_why_and_what_to_do() -> None:
    (read,) = from_anthropic({"messages": [{"role": "user", "content": [
        {"type": "document", "source": {"type": "file", "file_id": "file_011CN"}, "title": "report.pdf"}]}]})
    (file,) = read.get_content_blocks(DataBlock)
    with pytest.raises(UnsupportedContentError) as caught:
        to_anthropic([UserMessage("Now translate it", file)])
    assert "(messages[0].content[1]): 'file_011CN' has no scheme, so it is a file id, not a URL" in str(caught.value)
    # Given the metadata that records it, the block goes back as the file it is.
    again = UserMessage("Now translate it", file, metadata=read.metadata)
    assert to_anthropic([again])["messages"][0]["content"][1] == {
        "type": "document", "source": {"type": "file", "file_id": "file_011CN"}, "title": "report.pdf"}


# -- a hostile value in an error ---------------------------------------------------------------------


def test_a_long_bad_value_is_shown_by_its_start_in_the_error() -> None:
    # Errors land in logs: a megabyte role or type shows its start and its length, not itself.
    huge = "A" * 1_000_000
    cases: list[Any] = [
        lambda: from_anthropic({"messages": [{"role": huge, "content": "x"}]}),
        lambda: from_anthropic({"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": huge}]}]}]}),
        lambda: from_anthropic({"system": [{"type": huge, "text": "x"}], "messages": []}),
        lambda: from_anthropic_response({"type": huge}),
        lambda: from_anthropic_response({"type": "message", "role": huge, "content": []}),
    ]
    for read in cases:
        with pytest.raises((DecodeError, UnsupportedContentError)) as info:
            read()
        assert f"{'A' * 48!r}…(1,000,000 characters)" in str(info.value) and len(str(info.value)) < 1000


# -- what a request holds: only what the API takes -----------------------------------------------------


def test_the_sdk_type_check_is_closed() -> None:
    # pydantic, which the suite checked the SDK's types with, lets an unknown key through, and checks
    # nothing two arrays down (a citation in a text block of a message).
    citation = {"type": "char_location", "cited_text": "x", "document_index": 0, "start_char_index": 0, "end_char_index": 1}
    cases: list[tuple[dict[str, Any], str]] = [
        ({"role": "assistant", "content": [{"type": "text", "text": "a", "citations": [citation]}]},
         "$.content[0].citations[0]: CitationCharLocationParam requires 'document_title'"),
        ({"role": "assistant", "content": [{"type": "text", "text": "a", "citations": [{**citation, "document_title": None, "file_id": None}]}]},
         "$.content[0].citations[0]: CitationCharLocationParam has no key 'file_id'"),
        ({"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}, "caller": None}]},
         "$.content[0].caller: expected an object (DirectCallerParam), got null"),
    ]
    for message, problem in cases:
        assert problems(message, MessageParam, "$") == [problem]


_CITED = {"type": "char_location", "cited_text": "Paris", "document_index": 0, "document_title": None,
          "start_char_index": 0, "end_char_index": 5}


def test_an_answer_s_blocks_dumped_go_back_as_a_request_holds_them() -> None:
    answer = Message.model_validate({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "In Paris.", "citations": [{**_CITED, "file_id": "file_011"}]},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}],
        "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 4},
    })
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]}
    # A history kept as the SDK's blocks, or dumped to JSON (a null for each field left unset: caller,
    # toolset_name, a citation's file_id), or dumped without its nulls (a citation's document_title too).
    for blocks in (answer.content, [b.model_dump() for b in answer.content], [b.model_dump(exclude_none=True) for b in answer.content]):
        request = to_anthropic(from_anthropic([{"role": "user", "content": "Weather?"}, {"role": "assistant", "content": blocks}, result]))
        text, call = request["messages"][1]["content"]
        # The citation's file_id (the Files API file the document was) is no request's; its null title must be there.
        assert text["citations"] == [_CITED]
        assert call.get("caller", "absent") == "absent"  # not null: a request's caller is an object
        conforms(request)
