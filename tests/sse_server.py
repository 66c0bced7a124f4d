"""A loopback HTTP server that streams agent events as SSE and can drop connections on purpose.

Test helper: it binds 127.0.0.1 on a free port, serves in a daemon thread and
stops when the ``with`` block ends.  Every socket operation has a timeout.
"""

from __future__ import annotations

import random
import socket
import struct
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import attrs

from agentscope_py import (
    AssistantMessage,
    Base64Source,
    ChatUsage,
    DataBlock,
    GenerateReason,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolResultState,
    ToolUseBlock,
)
from agentscope_py.event import AgentEvent, events_from_message
from agentscope_py.sse import EventLog, encode_comment, encode_events

__all__ = ["EVENTS", "MESSAGE", "SYSTEM_CALLING", "LogServer", "RawServer", "StreamServer", "serve_bodies", "serve_events", "serve_log", "serve_raw"]

SOCKET_TIMEOUT = 5.0


def big_reply() -> AssistantMessage:
    """A reply worth streaming: reasoning, a long text, a tool call and its result, an image."""
    return AssistantMessage(
        ThinkingBlock("Let me look that up. " * 40),
        TextBlock("".join(f"word{i} é🌍\u2028 " for i in range(6000))),
        ToolUseBlock("call-1", "search", {"q": "kittens", "n": 3}, '{"q": "kittens", "n": 3}'),
        ToolResultBlock("call-1", "search", [TextBlock("3 hits\nline two")], state=ToolResultState.SUCCESS),
        DataBlock(Base64Source("image/png", "iVBORw0KGgo=" * 20), "data-9", "chart.png"),
        name="Friday",
        usage=ChatUsage(120, 45, 7, 1.25),
        generate_reason=GenerateReason.TOOL_CALLS,
    )


MESSAGE = big_reply()
EVENTS = events_from_message(MESSAGE, chunk_size=32)
# A result whose message breaks its role's rules: decoding it raises RoleContentError, as for any JSON.
SYSTEM_CALLING = 'data: {"type":"AGENT_RESULT","result":{"role":"SYSTEM","content":[{"type":"tool_use","id":"c","name":"n"}]}}\n\n'


@attrs.define
class StreamServer:
    """What the server streams and how it misbehaves, and what it saw.

    ``cuts``: how many connections to drop partway (at a seeded random byte
    below ``cut_before`` when given, half of them with a TCP reset; with
    ``stall``, the server instead goes silent there until the client leaves); ``honour_last_event_id=False`` replays from
    the start on every connection; ``retry_ms`` is sent first on each connection.
    """

    events: Sequence[AgentEvent]
    cuts: int = 0
    seed: int = 0
    cut_before: int | None = None
    stall: bool = False
    retry_ms: int = 1
    honour_last_event_id: bool = True
    content_type: str = "text/event-stream"
    preamble: str = ""
    url: str = ""
    last_event_ids: list[str | None] = attrs.field(factory=list)
    _lock: threading.Lock = attrs.field(factory=threading.Lock)
    _stopping: threading.Event = attrs.field(factory=threading.Event)

    def body(self, last_event_id: str | None) -> bytes:
        resume_from = last_event_id if self.honour_last_event_id else None
        chunks = encode_events(self.events, last_event_id=resume_from, retry=self.retry_ms)
        return (self.preamble + "".join(chunks)).encode()

    def next_cut(self, length: int) -> tuple[int, bool] | None:
        """Where to drop this connection (a byte offset and whether to reset), or None."""
        with self._lock:
            connection = len(self.last_event_ids)
            if connection > self.cuts:
                return None
            rng = random.Random(self.seed * 1000 + connection)
            return rng.randrange(1, min(length, self.cut_before or length)), rng.random() < 0.5


def _handler(server_state: StreamServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = SOCKET_TIMEOUT

        def do_GET(self) -> None:
            last_event_id = _last_event_id(self)
            with server_state._lock:
                server_state.last_event_ids.append(last_event_id)
            body = server_state.body(last_event_id)
            if server_state.honour_last_event_id and last_event_id and last_event_id == server_state.events[-1].id:
                self.send_response(204)  # nothing after the last event: the stream is over
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", server_state.content_type)
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            cut = server_state.next_cut(len(body))
            try:
                if cut is None:
                    self.wfile.write(body)
                    return
                offset, reset = cut
                self.wfile.write(body[:offset])
                self.wfile.flush()
                if server_state.stall:
                    server_state._stopping.wait(SOCKET_TIMEOUT)  # silent, connection open
                elif reset:  # an abortive close: the client sees ECONNRESET, not a clean end
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client left first (it stops reading after the reply's end)

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep test output clean

    return Handler


def _last_event_id(request: BaseHTTPRequestHandler) -> str | None:
    # http.server reads header bytes as Latin-1; clients send the id as UTF-8, as browsers do.
    # Several headers are joined as a comma list, as HTTP reads them: a test then sees them all.
    raw = request.headers.get_all("Last-Event-ID")
    return None if raw is None else ", ".join(value.encode("latin-1").decode("utf-8") for value in raw)


@attrs.define
class Bodies:
    """The n-th connection gets ``bodies[n]`` (the last one again after that), then is closed."""

    bodies: Sequence[str]
    url: str = ""
    last_event_ids: list[str | None] = attrs.field(factory=list)
    headers: list[dict[str, str]] = attrs.field(factory=list)  # each request's, as http.server read them
    paths: list[str] = attrs.field(factory=list)  # each request's target, as sent


def _bodies_handler(state: Bodies) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = SOCKET_TIMEOUT

        def do_GET(self) -> None:
            state.last_event_ids.append(_last_event_id(self))
            state.headers.append(dict(self.headers))
            state.paths.append(self.path)
            body = state.bodies[min(len(state.last_event_ids), len(state.bodies)) - 1]
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def serve_bodies(bodies: Sequence[str]) -> Iterator[Bodies]:
    """Serve ``bodies``, one per connection, at ``http://127.0.0.1:<free port>/``."""
    state = Bodies(bodies)
    with _serving(_bodies_handler(state)) as url:
        state.url = url
        yield state


@contextmanager
def _serving(handler: type[BaseHTTPRequestHandler], path: str = "/") -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{path}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=SOCKET_TIMEOUT)


@contextmanager
def serve_events(state: StreamServer, path: str = "/reply") -> Iterator[StreamServer]:
    """Serve ``state`` at ``http://127.0.0.1:<free port><path>`` for the duration of the block."""
    with _serving(_handler(state), path) as url:
        state.url = url
        try:
            yield state
        finally:
            state._stopping.set()  # a stalled connection stops waiting, so the server can shut down


@attrs.define
class LogServer:
    """Streams what ``log`` holds and is given, to each connection from its ``Last-Event-ID``; the
    n-th connection is dropped in the middle of its ``cut_after[n]``-th message."""

    log: EventLog
    cut_after: Sequence[int] = ()
    url: str = ""
    last_event_ids: list[str | None] = attrs.field(factory=list)


def _log_handler(state: LogServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = SOCKET_TIMEOUT

        def do_GET(self) -> None:
            last_event_id = _last_event_id(self)
            state.last_event_ids.append(last_event_id)
            connection = len(state.last_event_ids) - 1
            cut = state.cut_after[connection] if connection < len(state.cut_after) else None
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                for count, text in enumerate(encode_events(state.log.follow(last_event_id), retry=1)):
                    data = text.encode()
                    if count == cut:
                        self.wfile.write(data[: len(data) // 2])  # then the connection drops
                        return
                    self.wfile.write(data)
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client left first

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def serve_log(state: LogServer) -> Iterator[LogServer]:
    """Serve ``state`` at ``http://127.0.0.1:<free port>/reply`` for the duration of the block."""
    with _serving(_log_handler(state), "/reply") as url:
        state.url = url
        yield state


def keep_alive_preamble() -> str:
    """What a server may send before the events: a comment and a message of another kind."""
    return encode_comment("keep-alive") + "event: ping\ndata: {}\n\n"


@attrs.define
class RawServer:
    """Answers every connection with ``head`` (status line, headers and whatever body) and then
    sends nothing more, waiting for the client to close its end: ``client_closed`` is set when it has."""

    head: bytes
    url: str = ""
    client_closed: threading.Event = attrs.field(factory=threading.Event)


@contextmanager
def serve_raw(head: bytes) -> Iterator[RawServer]:
    """Serve ``head`` at ``http://127.0.0.1:<free port>/``, one connection at a time."""
    state = RawServer(head)

    def answer(connection: socket.socket, stopping: threading.Event) -> None:
        connection.settimeout(0.05)
        connection.sendall(state.head)
        while not stopping.is_set():  # until the client closes its end (or the block ends)
            try:
                if connection.recv(4096) == b"":
                    state.client_closed.set()
                    break
            except TimeoutError:
                continue
            except OSError:
                break

    with _serving_sockets(answer) as url:
        state.url = url
        yield state


@contextmanager
def _serving_sockets(answer: Callable[[socket.socket, threading.Event], None]) -> Iterator[str]:
    """Accept connections at ``http://127.0.0.1:<free port>/``, one at a time: each is given to
    ``answer``, with the event set when the block ends, then closed."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)
    stopping = threading.Event()

    def serve() -> None:
        while not stopping.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            with connection:
                answer(connection, stopping)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    finally:
        stopping.set()
        thread.join(timeout=SOCKET_TIMEOUT)
        listener.close()


_IMPATIENT = b"HTTP/1.1 500 Connected Too Often\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


@attrs.define
class HangUpServer:
    """Answers its first connection with ``response`` and closes it; closes every later one at once,
    before a status line: a server that went away after sending some events.  Past ``patience``
    connections it answers 500, which no client retries: a test of giving up fails, not hangs."""

    response: bytes
    url: str = ""
    connections: int = 0
    patience: int = 20


@contextmanager
def serve_once_then_hang_up(response: bytes) -> Iterator[HangUpServer]:
    """Serve ``response`` once at ``http://127.0.0.1:<free port>/``, then hang up on each connection."""
    state = HangUpServer(response)

    def answer(connection: socket.socket, stopping: threading.Event) -> None:
        state.connections += 1
        if state.connections == 1 or state.connections > state.patience:
            connection.recv(65536)  # the request, read before answering it
            connection.sendall(state.response if state.connections == 1 else _IMPATIENT)

    with _serving_sockets(answer) as url:
        state.url = url
        yield state
