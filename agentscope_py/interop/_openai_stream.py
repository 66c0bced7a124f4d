"""``OpenAIStreamRelay``: a streamed Chat Completions answer passed on as AgentScope events while
its chunks arrive.

The text goes on as text deltas and the tool calls' arguments as call fragments,
at once.  The relay also gathers the chunks into the whole answer, as the SDK
does, and reads it with ``from_openai_response`` when the answer is over: what
describes the answer (its usage, why it stopped, its ids) comes from there, and
so do the blocks nothing streamed (a refusal, an audio answer's transcript), so
that the message the reply makes is the one ``from_openai_response`` makes of
the answer.  Each chunk is checked whole before it changes anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .._blocks import TextBlock, ToolUseBlock
from .._checks import describe
from .._reader import as_plain, at, item, json_kind, opt_dict, opt_list, opt_str, req, req_int, req_list
from .._shown import elided, shown
from .._usage import ChatUsage
from ..errors import ArgumentTypeError, ArgumentValueError, DecodeError, StreamError
from ..event import AgentEvent, ReplyEmitter
from ._payloads import field_of, nesting_guard, req_object, sdk_json
from ._relay import AnswerRelay
from ._responses import from_openai_response, openai_usage
from ._stream_json import json_copy

__all__ = ["OpenAIStreamRelay"]

# Chunk fields that describe a chunk, not the answer: the SDK leaves them out of what it gathers.
_CHUNK_ONLY = frozenset({"choices", "object", "obfuscation", "usage"})
# Delta fields of a kind the answer's reader requires, checked in each chunk rather than at the end.
_DELTA_KINDS = {
    "content": str,
    "refusal": str,
    "role": str,
    "name": str,
    "audio": dict,
    "function_call": dict,
    "annotations": list,
}
_JSON_KINDS = {dict: "an object", list: "an array", str: "a string"}
# The fields of a streamed tool call and of its function the relay reads; any other (Gemini's
# extra_content, which wants its thought signature back) is the call's, as the SDK gathers it.
_CALL_KEYS = frozenset({"index", "id", "type", "function"})
_FUNCTION_KEYS = frozenset({"name", "arguments"})
# The fields of a choice the relay reads; the others (Azure's content_filter_results) are kept as they came.
_CHOICE_KEYS = frozenset({"index", "delta", "finish_reason", "logprobs"})


class _Call:
    """A tool call of the answer: its id, name, argument fragments and other fields."""

    __slots__ = ("arguments", "extras", "id", "name")

    def __init__(self, call_id: str, name: str) -> None:
        self.id = call_id
        self.name = name
        self.arguments: list[str] = []
        self.extras: dict[str, Any] = {}  # gathered as the SDK does; its function's under "function"


class _Fragment(NamedTuple):
    call_index: int
    call: _Call  # made by this chunk when the call begins here
    new: bool
    arguments: str
    extras: dict[str, Any] | None  # the fields besides those the relay reads, shaped as the call is


class _Chunk(NamedTuple):
    """A chunk, checked: the parts the relay uses."""

    fields: dict[str, Any]
    usage: tuple[Any, ChatUsage] | None  # as given, and read
    delta: dict[str, Any] | None  # the relayed choice's delta, without its tool calls; None: no such choice
    finish_reason: str | None
    logprobs: dict[str, Any] | None
    choice_fields: dict[str, Any]  # the choice's other fields (Azure's content_filter_results)
    fragments: list[_Fragment]


class OpenAIStreamRelay(AnswerRelay):
    """Passes one streamed Chat Completions answer on to a :class:`~agentscope_py.ReplyEmitter`
    while it arrives: ``feed(chunk)`` for each chunk (the SDK's ``ChatCompletionChunk``, its
    ``model_dump()``, or the parsed JSON), returning the events to send, then ``end()``.

    ``end()`` ends the reply's model call with the answer's usage. Then ``generate_reason`` and
    ``metadata`` are what :func:`from_openai_response` reads from the whole answer: give them to
    ``reply.finish(...)`` when this answer ends the reply. The message the reply makes is then the
    one ``from_openai_response`` makes of the answer the SDK gathers from the same chunks. Make
    one relay per answer: a reply that calls tools takes several.
    """

    __slots__ = (
        "_buffered",
        "_calls",
        "_choice",
        "_choice_fields",
        "_ended",
        "_fields",
        "_ids",
        "_late",
        "_message",
        "_order",
        "_reply",
        "_said",
        "_seen",
        "_usage",
    )
    _piece = "chunk"

    def __init__(self, reply: ReplyEmitter, *, choice: int = 0) -> None:
        """``choice``: the index of the choice to relay, when the request asked for several (``n``)."""
        if not isinstance(reply, ReplyEmitter):
            raise ArgumentTypeError(f"OpenAIStreamRelay relays into a ReplyEmitter, got {describe(reply)}")
        if type(choice) is not int:
            raise ArgumentTypeError(f"choice must be the index of a choice (an int), got {describe(choice)}")
        if choice < 0:
            raise ArgumentValueError(f"choice must be the index of a choice (0 or more), got {choice}")
        AnswerRelay.__init__(self)
        self._reply = reply
        self._choice = choice
        self._seen = False  # whether a chunk held the choice
        self._fields: dict[str, Any] | None = None  # the answer's fields, as its chunks gave them
        self._usage: tuple[Any, ChatUsage] | None = None  # the last usage a chunk gave
        self._choice_fields: dict[str, Any] = {}  # finish_reason, logprobs, the first chunk's other fields
        self._message: dict[str, Any] = {}  # the choice's message so far but its tool calls, gathered as the SDK does
        self._calls: dict[int, _Call] = {}  # tool call index -> the call its chunks go on
        self._order: list[_Call] = []  # the calls, in the order they began
        self._ids: set[str] = set()  # their ids
        self._buffered: list[str] | None = None  # blank text not sent yet: a refusal may take its place
        self._said = False  # whether text that says something, or a call, was sent
        self._late: list[str] = []  # text that came after a tool call began, sent at the end
        self._ended = False

    def __repr__(self) -> str:
        state = "ended" if self._ended else f"{len(self._order)} tool calls so far"
        return f"<OpenAIStreamRelay choice={self._choice}: {state}>"

    # -- the stream ---------------------------------------------------------------------

    def feed(self, chunk: Any) -> list[AgentEvent]:
        """Relay one chunk; returns the events to send for it (often none: a chunk may carry only a
        role, a usage or a finish reason). A malformed chunk raises :class:`~agentscope_py.DecodeError`
        naming the path, and changes nothing."""
        if self._ended:
            raise StreamError("this answer has ended (end() was called): make a new OpenAIStreamRelay for the next one")
        if self._reply.finished:  # before anything changes: the reply refuses what the chunk would add
            raise StreamError("the reply this relay feeds is finished: relay the answer into a reply still open")
        with nesting_guard(""):
            plain = _chunk(chunk)
            if plain is None:
                return []
            checked = self._check(json_copy(plain))
        self._take(checked)
        return self._send(checked)

    def end(self) -> list[AgentEvent]:
        """The answer is over: send what no chunk streamed (a refusal, an audio transcript, text
        that says nothing), end the model call with the answer's usage, and return the events."""
        if self._ended:
            return []
        if self._fields is None:
            raise StreamError("no chunk of the answer came: feed() its chunks before end()")
        if not self._seen:
            raise StreamError(
                f"no chunk held choice {self._choice}: choice= picks one of the answers the request asked for (n)"
            )
        read = from_openai_response(self._answer())
        reply, events = self._reply, []
        reply._check_usage(read.usage)  # before any event: a usage the reply refuses leaves all as it was
        if not self._said:
            for block in read.content:  # the text, or what the answer says instead, whole
                events += reply.block(block)
        else:
            for block in read.content:  # while the calls are open: other fields of theirs, as read
                if isinstance(block, ToolUseBlock) and block.metadata:
                    events += reply.tool_call(block.id or "", None, "", metadata=block.metadata)
            if self._late:
                events += reply.text("".join(self._late))
        events += reply.end_model_call(read.usage)
        self._read, self._ended = read, True
        return events

    # -- internals ----------------------------------------------------------------------

    def _check(self, plain: dict[str, Any]) -> _Chunk:
        """Every check of a chunk, changing nothing."""
        fields = {key: value for key, value in plain.items() if key not in _CHUNK_ONLY}
        usage_obj = opt_dict(plain.get("usage"), "usage")
        usage = None if usage_obj is None else (usage_obj, openai_usage(usage_obj))
        choices = req_list(req(plain, "choices", ""), "choices")
        for position, entry in enumerate(choices):
            path = item("choices", position)
            picked = req_object(entry, path)
            if req_int(req(picked, "index", path), at(path, "index")) == self._choice:
                break
        else:
            return _Chunk(fields, usage, None, None, None, {}, [])
        delta_path = at(path, "delta")
        delta = {key: value for key, value in (opt_dict(picked.get("delta"), delta_path) or {}).items() if value is not None}
        for key, kind in _DELTA_KINDS.items():
            if key in delta and type(delta[key]) is not kind:
                raise DecodeError(f"expected {_JSON_KINDS[kind]}, got {json_kind(delta[key])}", at(delta_path, key))
        self._check_answer_fields(delta, delta_path)
        # "" is no reason, as the SDK reads it: some servers send it in the chunks after the one that says why.
        finish_reason = opt_str(picked.get("finish_reason"), at(path, "finish_reason")) or None
        logprobs = opt_dict(picked.get("logprobs"), at(path, "logprobs"))
        fragments = self._fragments(opt_list(delta.pop("tool_calls", None), at(delta_path, "tool_calls")) or [], at(delta_path, "tool_calls"))
        others = {key: value for key, value in picked.items() if key not in _CHOICE_KEYS}
        return _Chunk(fields, usage, delta, finish_reason, logprobs, others, fragments)

    def _check_answer_fields(self, delta: dict[str, Any], path: str) -> None:
        """What ``from_openai_response`` would refuse of the answer at ``end()``, refused in the chunk
        that brings it, before its events go out: a role other than the assistant's; audio whose
        id is not a string or does not come first (OpenAI's first audio chunk carries it); and a
        legacy ``function_call`` whose name or arguments are no string, or whose first chunk has no
        name (arguments never given are ``""``: see ``_answer``)."""
        role = delta.get("role")
        if role is not None and role != "assistant":
            raise DecodeError(f"expected the role 'assistant' (an answer's), got {elided(role)}", at(path, "role"))
        function_call = delta.get("function_call")
        if function_call is not None:
            call_path = at(path, "function_call")
            for key in _FUNCTION_KEYS:
                value = function_call.get(key)
                if value is not None and type(value) is not str:
                    raise DecodeError(f"expected a string, got {json_kind(value)}", at(call_path, key))
            if function_call.get("name") is None and "function_call" not in self._message:
                raise DecodeError("missing required key 'name': a function call's first chunk gives its name", call_path)
        audio = delta.get("audio")
        if audio is None:
            return
        audio_id = audio.get("id")
        if audio_id is not None and type(audio_id) is not str:
            raise DecodeError(f"expected a string, got {json_kind(audio_id)}", at(path, "audio.id"))
        if audio_id is None and "audio" not in self._message:
            raise DecodeError("missing required key 'id': an answer's audio begins with its id", at(path, "audio"))

    def _fragments(self, entries: list[Any], path: str) -> list[_Fragment]:
        """The tool call fragments of a chunk. A new id at an index begins a new call there (some
        servers give every parallel call index 0), which needs a name; an id may not be reused."""
        fragments = []
        # The calls the chunk's earlier fragments began, over those before it: nothing of the relay
        # changes until the whole chunk is checked.  (A copy of every call so far, per chunk, made an
        # answer of many parallel calls quadratic.)
        begun: dict[int, _Call] = {}
        begun_ids: set[str] = set()
        for position, raw in enumerate(entries):
            call_path = item(path, position)
            entry = req_object(raw, call_path)
            index = req_int(req(entry, "index", call_path), at(call_path, "index"))
            function = opt_dict(entry.get("function"), at(call_path, "function")) or {}
            if entry.get("type") not in (None, "function") or not function and entry.get("custom") is not None:
                raise DecodeError(f"only function tool calls are relayed, got a {shown(entry.get('type'))} call", call_path)
            call_id = opt_str(entry.get("id"), at(call_path, "id")) or None
            name = opt_str(function.get("name"), at(call_path, "function.name")) or None
            arguments = opt_str(function.get("arguments"), at(call_path, "function.arguments")) or ""
            extras = _call_extras(entry, function)
            call = begun.get(index) or self._calls.get(index)
            if call_id is not None and (call is None or call_id != call.id):
                if name is None:
                    raise DecodeError(f"tool call {call_id!r} begins here: its first chunk must give the function name", call_path)
                if call_id in begun_ids or call_id in self._ids:
                    raise DecodeError(f"tool call {call_id!r} was given already, at another index", at(call_path, "id"))
                call = begun[index] = _Call(call_id, name)
                begun_ids.add(call_id)
                fragments.append(_Fragment(index, call, True, arguments, extras))
                continue
            if call is None:
                raise DecodeError(f"the first chunk of tool call {index} must give its id and function name", call_path)
            if name is not None and name != call.name:
                raise DecodeError(f"tool call {call.id!r} is named {call.name!r}, not {name!r}", at(call_path, "function.name"))
            fragments.append(_Fragment(index, call, False, arguments, extras))
        return fragments

    def _take(self, chunk: _Chunk) -> None:
        """Gather a checked chunk into the answer."""
        if self._fields is None:
            self._fields = chunk.fields
        else:  # a field a later chunk gives (a fingerprint, a service tier) is the answer's too
            self._fields.update((key, value) for key, value in chunk.fields.items() if value is not None)
        if chunk.usage is not None:
            self._usage = chunk.usage
        if chunk.delta is None:
            return
        if not self._seen:  # as the SDK keeps them: from the chunk that begins the choice
            self._choice_fields.update(chunk.choice_fields)
        self._seen = True
        if chunk.finish_reason is not None:
            self._choice_fields["finish_reason"] = chunk.finish_reason
        if chunk.logprobs is not None:
            _gather(self._choice_fields, {"logprobs": chunk.logprobs})
        _gather(self._message, chunk.delta)
        for fragment in chunk.fragments:
            if fragment.new:
                self._calls[fragment.call_index] = fragment.call
                self._order.append(fragment.call)
                self._ids.add(fragment.call.id)
            fragment.call.arguments.append(fragment.arguments)
            if fragment.extras is not None:
                _gather(fragment.call.extras, fragment.extras)

    def _send(self, chunk: _Chunk) -> list[AgentEvent]:
        """The reply's events for a chunk gathered."""
        events: list[AgentEvent] = []
        text = None if chunk.delta is None else chunk.delta.get("content")
        if text is not None:  # before the chunk's calls, which _take counted already
            events += self._text(text, len(self._order) > sum(fragment.new for fragment in chunk.fragments))
        reply = self._reply
        for fragment in chunk.fragments:
            if not self._said and self._buffered is not None:
                events += reply.block(TextBlock("".join(self._buffered)))  # the answer's text comes before its calls
                self._buffered = None
            self._said = True
            call = fragment.call
            events += reply.tool_call(call.id, call.name if fragment.new else None, fragment.arguments)
        return events

    def _text(self, text: str, after_calls: bool) -> list[AgentEvent]:
        if after_calls:  # text after a call began would close the calls, which may go on: it waits
            self._late.append(text)
            return []
        if self._said:
            return self._reply.text(text)
        if text.strip():  # it says something: no refusal will stand in for it
            held = "".join(self._buffered or ()) + text
            self._buffered, self._said = None, True
            return self._reply.text(held)
        if self._buffered is None:
            self._buffered = []
        self._buffered.append(text)
        return []

    def _answer(self) -> dict[str, Any]:
        """The whole answer, as the SDK gathers it from the chunks."""
        answer: dict[str, Any] = {**(self._fields or {}), "object": "chat.completion"}
        if self._usage is not None:
            answer["usage"] = self._usage[0]
        message = {"role": "assistant", **_joined(self._message)}
        if "function_call" in message and "arguments" not in message["function_call"]:
            message["function_call"]["arguments"] = ""  # a call of no arguments, its first chunk checked the name
        if self._order:
            message["tool_calls"] = [_whole_call(call) for call in self._order]
        answer["choices"] = [{"index": self._choice, **_joined(self._choice_fields), "message": message}]
        return answer


def _call_extras(entry: Mapping[str, Any], function: Mapping[str, Any]) -> dict[str, Any] | None:
    """The fields of a tool call fragment besides those the relay reads; ``None`` when it has none."""
    if entry.keys() <= _CALL_KEYS and function.keys() <= _FUNCTION_KEYS:
        return None
    extras = {key: value for key, value in entry.items() if key not in _CALL_KEYS}
    function_extras = {key: value for key, value in function.items() if key not in _FUNCTION_KEYS}
    if function_extras:
        extras["function"] = function_extras
    return extras


def _whole_call(call: _Call) -> dict[str, Any]:
    """A tool call of the answer, as the SDK gathers it from the fragments."""
    extras = _joined(call.extras)
    function = {**extras.pop("function", {}), "name": call.name, "arguments": "".join(call.arguments)}
    return {**extras, "id": call.id, "type": "function", "function": function}


def _chunk(chunk: Any) -> dict[str, Any] | None:
    """``chunk`` as a JSON object; ``None`` for one to skip (Azure's content filter notices, and the
    events the SDK's ``stream()`` derives from the chunks)."""
    kind = field_of(chunk, "type")
    if field_of(chunk, "object") is None and isinstance(kind, str) and kind in _STREAM_EVENTS:
        # An event of client.chat.completions.stream(...): "chunk" holds one (taken before its
        # snapshot of the whole answer so far is read); the others ("content.delta" …) repeat it.
        if kind != "chunk":
            return None
        chunk = field_of(chunk, "chunk")
    plain = as_plain(sdk_json(chunk))
    if not isinstance(plain, Mapping):
        if isinstance(plain, (str, bytes)):
            hint = "; parse each server-sent event's data as JSON first"
        elif isinstance(plain, (list, tuple)):
            hint = "; give the chunks one by one"
        else:
            hint = ""
        raise DecodeError(f"expected a chat.completion.chunk object, got {json_kind(plain)}{hint}")
    kind = plain.get("object")
    if kind == "":  # as the SDK does: Azure sends its asynchronous filter's results so
        return None
    if kind == "chat.completion":
        raise DecodeError("this is a whole answer, not a chunk of one: from_openai_response reads it", "object")
    if kind is not None and kind != "chat.completion.chunk":
        raise DecodeError(f"expected a chat.completion.chunk, got {elided(str(kind))}", "object")
    return dict(plain)


# The events of the SDK's ChatCompletionStream: anything else with a "type" is no chunk, and is
# refused as one.
_STREAM_EVENTS = frozenset(
    {
        "chunk",
        *(f"{part}.{step}" for part in ("content", "refusal", "tool_calls.function.arguments") for step in ("delta", "done")),
        *(f"logprobs.{part}.{step}" for part in ("content", "refusal") for step in ("delta", "done")),
    }
)


class _Text(list[str]):
    """Text gathered from deltas, joined once at the end: appending to a ``str`` is quadratic."""


def _gather(gathered: dict[str, Any], delta: Mapping[str, Any]) -> None:
    """Add ``delta`` to ``gathered``, in place, as the OpenAI SDK adds a chunk's delta to its
    snapshot: text appended, numbers added, objects merged key by key, lists of indexed objects
    merged by index and other lists extended; ``index`` and ``type`` replaced, and ``role`` too,
    which compatible servers repeat in every chunk (the SDK would make it "assistantassistant");
    a value of another kind than the one gathered leaves it."""
    for key, value in delta.items():
        current = gathered.get(key)
        if current is None or key in ("index", "type", "role"):
            gathered[key] = _fresh(value)
        elif isinstance(current, _Text) and isinstance(value, str):
            current.append(value)
        elif isinstance(current, dict) and isinstance(value, Mapping):
            _gather(current, value)
        elif isinstance(current, list) and not isinstance(current, _Text) and isinstance(value, list):
            _gather_list(current, value)
        elif _number(current) and _number(value):
            gathered[key] = current + value


def _gather_list(gathered: list[Any], delta: list[Any]) -> None:
    if not _indexed(delta):
        gathered.extend(_fresh(entry) for entry in delta)
        return
    for entry in delta:  # each an object with an index: checked by json_copy
        index = entry["index"]
        current = gathered[index] if index < len(gathered) else None
        if isinstance(current, dict):
            _gather(current, entry)
        else:
            # Past the end, or onto a list of no objects, which the SDK gathers by extending it: appended,
            # as there.  (Inserted at the index, each entry moved the rest: quadratic in a hostile stream.)
            gathered.append(_fresh(entry))


def _fresh(value: Any) -> Any:
    """``value`` as gathered from nothing."""
    if isinstance(value, str):
        return _Text([value])
    if isinstance(value, Mapping):
        gathered: dict[str, Any] = {}
        _gather(gathered, value)
        return gathered
    if isinstance(value, list):
        fresh: list[Any] = []
        _gather_list(fresh, value)
        return fresh
    return value


def _joined(value: Any) -> Any:
    """What was gathered, as plain JSON."""
    if isinstance(value, _Text):
        return "".join(value)
    if isinstance(value, dict):
        return {key: _joined(entry) for key, entry in value.items()}
    if isinstance(value, list):
        return [_joined(entry) for entry in value]
    return value


def _number(value: object) -> bool:
    return type(value) is int or type(value) is float


def _indexed(value: object) -> bool:
    return isinstance(value, list) and any(isinstance(entry, Mapping) and "index" in entry for entry in value)
