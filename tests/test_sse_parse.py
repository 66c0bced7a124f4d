"""The SSE parser and encoder: the WHATWG event-stream rules, and chunking that cannot matter."""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentscope_py import ArgumentTypeError, ArgumentValueError, DecodeError
from agentscope_py.sse import MAX_RETRY, SSEMessage, SSEParser, encode_comment, encode_sse, parse_messages


def parse_whole(stream: bytes | str) -> list[SSEMessage]:
    return SSEParser().feed(stream)


def parse_bytewise(stream: bytes) -> list[SSEMessage]:
    parser = SSEParser()
    return [message for index in range(len(stream)) for message in parser.feed(stream[index : index + 1])]


def test_multi_line_data_is_joined_with_newlines() -> None:
    assert parse_whole("data: YHOO\ndata: +2\ndata: 10\n\n") == [SSEMessage("message", "YHOO\n+2\n10", "")]


def test_comments_ids_and_an_unfinished_message_at_the_end() -> None:
    stream = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n"
    parser = SSEParser()
    assert parser.feed(stream) == [
        SSEMessage("message", "first event", "1"),
        SSEMessage("message", "second event", ""),  # a bare "id" resets the last event id
    ]
    assert parser.last_event_id == ""  # the third message never got its blank line: not dispatched


def test_fields_without_a_colon_and_empty_data() -> None:
    # "data" alone is a data line with an empty value; two of them make "\n".
    assert parse_whole("data\n\ndata\ndata\n\ndata:") == [
        SSEMessage("message", "", ""),
        SSEMessage("message", "\n", ""),
    ]


def test_only_one_leading_space_is_stripped() -> None:
    assert parse_whole("data:test\n\ndata: test\n\ndata:  test\n\n") == [
        SSEMessage("message", "test", ""),
        SSEMessage("message", "test", ""),
        SSEMessage("message", " test", ""),
    ]


def test_message_without_data_is_not_dispatched_and_resets_the_event_type() -> None:
    parser = SSEParser()
    assert parser.feed("event: ping\nid: 9\n\ndata: x\n\n") == [SSEMessage("message", "x", "9")]
    assert parser.last_event_id == "9"


def test_event_names_ids_and_unknown_fields() -> None:
    stream = "event: TEXT_BLOCK_DELTA\nid: e1\nfoo: bar\ndata: {}\n\ndata: next\n\n"
    assert parse_whole(stream) == [
        SSEMessage("TEXT_BLOCK_DELTA", "{}", "e1"),
        SSEMessage("message", "next", "e1"),  # the last event id carries over
    ]


def test_an_id_containing_nul_is_ignored() -> None:
    assert parse_whole("id: a\n\nid: b\0c\ndata: x\n\n") == [SSEMessage("message", "x", "a")]


@pytest.mark.parametrize(
    ("line", "expected"),
    [("retry: 250", 250), ("retry:0", 0), ("retry: 1a", None), ("retry: -5", None), ("retry: ", None), ("retry: ٣", None),
     ("retry: 00000000000000000000042", 42), (f"retry: {MAX_RETRY}", MAX_RETRY), (f"retry: {MAX_RETRY + 1}", MAX_RETRY),
     ("retry: 99999999999999999999", MAX_RETRY), ("retry: " + "9" * 5000, MAX_RETRY)],
)
def test_retry_takes_only_ascii_digits(line: str, expected: int | None) -> None:
    parser = SSEParser()
    parser.feed(line + "\n\n")
    assert parser.retry == expected


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_every_line_ending_reads_the_same(newline: str) -> None:
    stream = newline.join(["id: 1", "data: a", "data: b", "", ": c", "data: d", "", ""])
    assert parse_whole(stream) == [SSEMessage("message", "a\nb", "1"), SSEMessage("message", "d", "1")]
    assert parse_bytewise(stream.encode()) == parse_whole(stream)


def test_a_crlf_split_between_chunks_is_one_line_end() -> None:
    parser = SSEParser()
    assert parser.feed("data: a\r") == []
    assert parser.feed("\n\r") == [SSEMessage("message", "a", "")]
    assert parser.feed("\ndata: b\r\n\r\n") == [SSEMessage("message", "b", "")]


def test_a_leading_byte_order_mark_is_dropped_only_at_the_start() -> None:
    assert parse_whole("\ufeffdata: x\n\n") == [SSEMessage("message", "x", "")]
    assert parse_bytewise(b"\xef\xbb\xbfdata: x\n\ndata: \xef\xbb\xbfy\n\n") == [
        SSEMessage("message", "x", ""),
        SSEMessage("message", "\ufeffy", ""),
    ]
    assert parse_whole("\ufeff\ufeffdata: x\n\n") == []  # the second BOM is part of a field name


def test_utf8_split_anywhere_and_invalid_bytes_replaced() -> None:
    stream = "data: héllo 🌍 €\n\n".encode()
    assert parse_bytewise(stream) == [SSEMessage("message", "héllo 🌍 €", "")]
    assert parse_whole(b"data: a\xffb\n\n") == [SSEMessage("message", "a\ufffdb", "")]


def test_a_message_repr_shows_the_start_of_long_data() -> None:
    [message] = parse_whole("id: 7\ndata: " + "x" * 10_000 + "\n\n")
    assert repr(message) == f"SSEMessage(event='message', data={'x' * 48!r}…(10,000 characters), last_event_id='7')"


def test_parse_messages_reads_an_iterable_of_chunks() -> None:
    chunks = [b"data: a", b"\n", b"\ndata: b\n", b"\n"]
    assert list(parse_messages(chunks)) == [SSEMessage("message", "a", ""), SSEMessage("message", "b", "")]


@pytest.mark.parametrize("kind", [str, bytes])
def test_a_stream_given_whole_is_read_as_its_messages_are_asked_for(kind: type[Any]) -> None:
    # Two megabytes of tiny messages: parsed all at once they would be held as some 12 MB of objects.
    text = "data: x\n\n" * 200_000
    stream = text if kind is str else text.encode()
    tracemalloc.start()
    try:
        messages = parse_messages(stream)
        first = next(messages)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert first == SSEMessage("message", "x", "")
    assert held < 1_000_000, f"{held} bytes held for the first message"
    assert sum(1 for _ in messages) == 199_999


def test_the_documented_limits_are_a_day_of_retry_and_64_mi_characters() -> None:
    # sse.md states both; the other tests take them from the package.
    assert MAX_RETRY == 24 * 60 * 60 * 1000
    assert SSEParser().max_message_size == 64 * 1024 * 1024
    parser = SSEParser()
    parser.feed("data: " + "x" * (64 * 1024 * 1024 - 6))  # the line so far: right at the limit
    with pytest.raises(DecodeError, match=f"beyond {64 * 1024 * 1024} characters"):
        parser.feed("x")


def test_a_message_that_never_ends_cannot_fill_the_memory() -> None:
    parser = SSEParser(max_message_size=100)
    parser.feed("data: " + "x" * 90)
    with pytest.raises(DecodeError, match="beyond 100 characters"):
        parser.feed("x" * 20)  # one endless line
    parser = SSEParser(max_message_size=100)
    with pytest.raises(DecodeError, match="max_message_size"):
        parser.feed("data: 0123456789\n" * 10)  # many data lines, no blank line
    ok = SSEParser(max_message_size=100)
    assert len(ok.feed("data: 0123456789\n\n" * 50)) == 50  # the size counts per message


_LINES = st.lists(
    st.sampled_from(["data: ", "data:", "id: ", "event: ", ": ", "retry: ", ""]).flatmap(
        lambda field: st.text("xyé🌍", max_size=12).map(lambda value: field + value)
    ),
    max_size=12,
)


@given(_LINES, st.integers(min_value=1, max_value=30), st.data())
def test_what_comes_out_before_a_message_too_large_does_not_depend_on_the_chunks(
    lines: list[str], limit: int, data: st.DataObject
) -> None:
    stream = "".join(line + "\n" for line in lines) + "\n"
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=6)))
    chunks = [stream[start:end] for start, end in zip([0, *cuts], [*cuts, len(stream)])]

    def parsed(pieces: list[str]) -> tuple[list[SSEMessage], bool]:
        messages: list[SSEMessage] = []
        try:
            messages.extend(parse_messages(pieces, max_message_size=limit))
        except DecodeError:
            return messages, False
        return messages, True

    assert parsed(chunks) == parsed([stream])


def test_the_messages_before_one_too_large_come_out_first_then_the_error() -> None:
    stream = "data: ok\n\ndata: " + "x" * 200 + "\n\n"
    parser = SSEParser(max_message_size=100)
    assert parser.feed(stream) == [SSEMessage("message", "ok", "")]
    for again in (lambda: parser.feed("data: more\n\n"), parser.close):
        with pytest.raises(DecodeError, match="beyond 100 characters"):
            again()  # and on every later call
    ended = SSEParser(max_message_size=100)
    assert ended.feed(stream) == [SSEMessage("message", "ok", "")]
    with pytest.raises(DecodeError, match="beyond 100 characters"):
        ended.close()  # the stream ended there: close() says what feed could not
    SSEParser().close()  # nothing held: nothing raised


def test_comments_count_each_on_its_own_never_toward_a_message() -> None:
    parser = SSEParser(max_message_size=100)
    assert parser.feed("data: {}\n\n" + ": keep-alive\n" * 1_000 + "data: {}\n\n") == [SSEMessage("message", "{}", "")] * 2
    long_comment = ":" + "x" * 100 + "\n"
    for chunks in ([long_comment], [long_comment[:50], long_comment[50:]]):
        parser = SSEParser(max_message_size=100)
        # Said of a comment: a stream of keep-alives alone would have the reader look for a message.
        with pytest.raises(DecodeError, match="^an SSE comment line grew beyond 100 characters"):
            for chunk in chunks:
                parser.feed(chunk)
        with pytest.raises(DecodeError, match="^an SSE comment line grew beyond 100 characters"):
            parser.feed("data: {}\n\n")  # every later call says so again, as it did


def test_the_size_counts_the_lines_as_written() -> None:
    # Field names count, line ends do not: "data: " and ten characters fill a limit of 16 exactly.
    assert SSEParser(max_message_size=16).feed("data: 0123456789\n\n") == [SSEMessage("message", "0123456789", "")]
    too_large = r"^an SSE message grew beyond {} characters without ending; pass max_message_size=\.\.\. to accept larger ones$"
    with pytest.raises(DecodeError, match=too_large.format(15)):
        SSEParser(max_message_size=15).feed("data: 0123456789\n\n")
    # An id line counts too, whole or split.
    with pytest.raises(DecodeError, match=too_large.format(10)):
        SSEParser(max_message_size=10).feed("id: " + "x" * 46 + "\n")
    # Split, each piece under the limit: the pieces add up ("id: " and six characters fill ten exactly).
    assert SSEParser(max_message_size=10).feed("id: xxxxxx\n") == []
    parser = SSEParser(max_message_size=10)
    assert parser.feed("id: ") == [] and parser.feed("xxx") == [] and parser.feed("xxx") == []
    with pytest.raises(DecodeError, match=too_large.format(10)):
        parser.feed("x")


@pytest.mark.parametrize(
    ("feed", "counted", "messages"),
    [
        # 100,000 data lines "xy": 300,000 characters with their line ends, one message of them all.
        (lambda parser: [parser.feed("data:xy\n" * 1000) for _ in range(100)], 300_000, ["xy\n" * 99_999 + "xy"]),
        # One 200,000-character line a byte at a time (a field of no known name: no message).
        (lambda parser: [parser.feed(b"x") for _ in range(200_000)], 200_000, []),
    ],
    ids=["tiny-lines", "tiny-chunks"],
)
def test_what_a_message_holds_in_memory_stays_near_the_characters_it_counts(
    feed: Any, counted: int, messages: list[str]
) -> None:
    # Kept as one object a piece, each tiny piece costs some fifty bytes beside its characters: a
    # hostile stream could hold twenty times max_message_size.
    parser = SSEParser(max_message_size=1_000_000)
    tracemalloc.start()
    try:
        feed(parser)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < 2 * counted, f"{held} bytes held for {counted} characters"
    assert [message.data for message in parser.feed("\n\n")] == messages


# -- encoding -------------------------------------------------------------------------

messages_data = st.text(st.characters(codec="utf-8", exclude_characters="\r"), max_size=40)
field_text = st.text(st.characters(codec="utf-8", exclude_characters="\r\n\0"), max_size=12)


def test_encode_sse_writes_fields_then_data_lines() -> None:
    assert encode_sse("a\nb", event="X", id="1", retry=5) == "id: 1\nevent: X\nretry: 5\ndata: a\ndata: b\n\n"
    assert encode_sse("") == "data: \n\n"
    assert encode_comment() == ":\n\n" and encode_comment("keep-alive") == ": keep-alive\n\n"


def test_encode_sse_refuses_what_a_field_cannot_hold() -> None:
    with pytest.raises(ArgumentValueError, match="line break"):
        encode_sse("x", id="a\nb")
    with pytest.raises(ArgumentValueError, match="NUL"):
        encode_sse("x", id="a\0b")
    with pytest.raises(ArgumentValueError, match="retry"):
        encode_sse("x", retry=-1)
    with pytest.raises(ArgumentValueError, match="line break"):
        encode_comment("a\rb")


@given(st.lists(st.tuples(messages_data, st.none() | field_text, st.none() | field_text), max_size=8), st.data())
def test_encoded_messages_parse_back_however_the_bytes_are_split(
    items: list[tuple[str, str | None, str | None]], data: st.DataObject
) -> None:
    stream = "".join(encode_sse(text, event=event, id=id) for text, event, id in items).encode()
    expected = []
    last_id = ""
    for text, event, id in items:
        last_id = last_id if id is None else id
        expected.append(SSEMessage(event or "message", text, last_id))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    parser = SSEParser()
    got = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)]):
        got.extend(parser.feed(stream[start:end]))
    assert got == expected


@given(st.binary(max_size=200), st.lists(st.integers(0, 200), max_size=8))
def test_any_bytes_parse_the_same_however_they_are_split(stream: bytes, cuts: list[int]) -> None:
    whole = parse_whole(stream)
    parser = SSEParser()
    pieces = sorted(min(cut, len(stream)) for cut in cuts)
    got = []
    for start, end in zip([0, *pieces], [*pieces, len(stream)]):
        got.extend(parser.feed(stream[start:end]))
    assert got == whole


STREAM_PIECES = ["data", "id", "event", "retry", ":", " ", "\r", "\n", "\ufeff", "x", "é", "1", "\0"]


@given(st.lists(st.sampled_from(STREAM_PIECES), max_size=40).map("".join))
def test_stream_like_text_parses_the_same_as_str_and_as_bytes(stream: str) -> None:
    assert parse_whole(stream) == parse_whole(stream.encode()) == parse_bytewise(stream.encode())


@pytest.mark.parametrize("whole", ["data: a\n\ndata: b\n\n", b"data: a\n\ndata: b\n\n"])
def test_a_stream_given_whole_is_one_chunk(whole: str | bytes) -> None:
    assert [message.data for message in parse_messages(whole)] == ["a", "b"]


def test_chunks_may_be_any_bytes_like_object_and_nothing_else() -> None:
    parser = SSEParser()
    assert parser.feed(bytearray(b"data: caf")) == []
    assert parser.feed(memoryview("\u00e9\n\n".encode())) == [SSEMessage("message", "caf\u00e9", "")]
    with pytest.raises(ArgumentTypeError, match="an SSE chunk is str or bytes, got int"):
        SSEParser().feed(3)  # type: ignore[arg-type]


def test_text_fed_inside_a_characters_bytes_makes_them_an_invalid_sequence() -> None:
    # The bytes held back for the rest of a character were joined to whatever bytes came next,
    # after the text fed between: "\xa9" completed "é" at the start of the next line.  Now the
    # stream reads as the same stream all in bytes does.
    parser = SSEParser()
    assert parser.feed(b"data: caf\xc3") == []
    assert parser.feed("") == []  # no text: the character may still be completed
    assert parser.feed("\n\n") == [SSEMessage("message", "caf\ufffd", "")]
    assert parser.feed(b"\xa9data: x\n\n") == []  # a field named "\ufffddata": ignored
    assert list(parse_messages(b"data: caf\xc3\n\n\xa9data: x\n\n")) == [SSEMessage("message", "caf\ufffd", "")]
    assert parser.feed(b"data: y\n\ndata: ") == [SSEMessage("message", "y", "")]
    assert parser.feed("z\n\n") == [SSEMessage("message", "z", "")]  # nothing held: nothing replaced


def test_an_unfinished_line_of_exactly_max_message_size_is_accepted() -> None:
    parser = SSEParser(max_message_size=10)
    assert parser.feed("data:12345") == []  # ten characters, the line end still to come
    assert parser.feed("\n\n") == [SSEMessage("message", "12345", "")]


def test_an_empty_text_chunk_does_not_end_the_bytes_of_a_character() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: \xe2\x82") == []  # the first two bytes of the euro sign
    assert parser.feed("") == []  # nothing: not text "in the middle of a character's bytes"
    [message] = parser.feed(b"\xac\n\n")
    assert message.data == "\u20ac"


def test_a_comment_of_exactly_max_message_size_is_accepted() -> None:
    parser = SSEParser(max_message_size=10)
    assert parser.feed(":" + "x" * 9 + "\n") == []  # ten characters: at the limit
    [message] = parser.feed("data: ok\n\n")
    assert message.data == "ok"
    with pytest.raises(DecodeError, match="beyond 10 characters"):
        SSEParser(max_message_size=10).feed(":" + "x" * 10 + "\n")


def test_an_unfinished_comment_inside_a_message_counts_alone() -> None:
    parser = SSEParser(max_message_size=10)
    assert parser.feed("data: abcd\n") == []  # ten characters of the message: at the limit
    assert parser.feed(":ke") == []  # a comment still arriving: three characters of its own
    [message] = parser.feed("ep\n\n")
    assert message.data == "abcd"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("10000000", 10_000_000),  # as many digits as MAX_RETRY, below it
        ("00000000000000000000000000012", 12),  # leading zeros are no digits of the number
        (str(MAX_RETRY), MAX_RETRY),
        (str(MAX_RETRY + 1), MAX_RETRY),
        ("1" * 9, MAX_RETRY),
    ],
)
def test_retry_is_read_exactly_up_to_its_bound(value: str, expected: int) -> None:
    parser = SSEParser()
    parser.feed(f"retry: {value}\n\n")
    assert parser.retry == expected


def test_lines_split_across_chunks_do_not_add_up_across_messages() -> None:
    parser = SSEParser(max_message_size=10)
    for index in range(5):
        assert parser.feed(f"data: {index}") == []  # seven characters, unfinished
        [message] = parser.feed("\n\n")
        assert message.data == str(index)
