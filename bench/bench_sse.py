"""W10 and W11: reading a reply's Server-Sent Events stream, against httpx-sse.

The stream is W7's reply (229 events: 200 text deltas, a tool call in 20
fragments) as a server writes it (``encode_events``), in the 4 KiB chunks a
socket might hand over, pre-built:

W10  the agent events of the stream: ``parse_events`` against httpx-sse's
     ``EventSource.iter_sse()`` with each message's data read by
     ``AgentEvent.from_json`` (the JSON decoding is the same for both);
W11  the SSE messages alone, without the JSON: ``parse_messages`` against
     ``iter_sse()``, which shows what the SSE parsing itself costs.

httpx-sse reads an ``httpx.Response``: each call makes one over the same chunks,
as its users get one from their client.  The ceiling splits the joined text on
blank lines and takes each ``data:`` line, which follows none of the SSE rules
(CR line ends, multi-line data, comments, ids, limits).

No target: the issues set none.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bench._harness import OURS, Op, Workload
from bench.bench_stream import ours_events

CHUNK = 4 * 1024


def _chunks() -> list[bytes]:
    from agentscope_py.sse import encode_events

    body = "".join(encode_events(ours_events())).encode()
    return [body[start : start + CHUNK] for start in range(0, len(body), CHUNK)]


def setup_ours_events() -> Op:
    from agentscope_py.sse import parse_events

    chunks = _chunks()
    return lambda: list(parse_events(chunks))


def setup_ours_messages() -> Op:
    from agentscope_py.sse import parse_messages

    chunks = _chunks()
    return lambda: list(parse_messages(chunks))


def _httpx_sse_reader() -> Any:
    """A function of the chunks giving httpx-sse's messages, read from a fresh response."""
    import httpx
    from httpx_sse import EventSource

    class Chunks(httpx.SyncByteStream):
        def __init__(self, chunks: list[bytes]) -> None:
            self._chunks = chunks

        def __iter__(self) -> Iterator[bytes]:
            return iter(self._chunks)

    headers = {"Content-Type": "text/event-stream"}

    def read(chunks: list[bytes]) -> Iterator[Any]:
        return EventSource(httpx.Response(200, headers=headers, stream=Chunks(chunks))).iter_sse()

    return read


def setup_httpx_sse_events() -> Op:
    from agentscope_py import AgentEvent

    chunks, read = _chunks(), _httpx_sse_reader()
    return lambda: [AgentEvent.from_json(message.data) for message in read(chunks)]


def setup_httpx_sse_messages() -> Op:
    chunks, read = _chunks(), _httpx_sse_reader()
    return lambda: list(read(chunks))


def _data_lines(chunks: list[bytes]) -> list[str]:
    text = b"".join(chunks).decode()
    return [line[6:] for block in text.split("\n\n") for line in block.split("\n") if line.startswith("data: ")]


def setup_split_events() -> Op:
    from agentscope_py import AgentEvent

    chunks = _chunks()
    return lambda: [AgentEvent.from_json(data) for data in _data_lines(chunks)]


def setup_split_messages() -> Op:
    chunks = _chunks()
    return lambda: _data_lines(chunks)


def benchmarks() -> list[Workload]:
    ceiling = "split on blank lines (ceiling, no SSE rules)"
    return [
        Workload(
            "W10",
            "read W7's reply (229 events) from its SSE stream into AgentEvents (streams/s)",
            {
                OURS: setup_ours_events,
                "httpx-sse iter_sse + AgentEvent.from_json": setup_httpx_sse_events,
                ceiling: setup_split_events,
            },
        ),
        Workload(
            "W11",
            "parse W7's reply's SSE stream into messages, without the JSON (streams/s)",
            {OURS: setup_ours_messages, "httpx-sse iter_sse": setup_httpx_sse_messages, ceiling: setup_split_messages},
        ),
    ]
