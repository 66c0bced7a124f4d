"""``OpenAIStreamRelay``: a streamed Chat Completions answer passed on as AgentScope events while
its chunks arrive.

The text goes on as text deltas and the tool calls' arguments as call fragments,
at once.  The relay also gathers the chunks into the whole answer, as the SDK
does, and reads it with ``from_openai_response`` when the answer is over: what
describes the answer (its usage, why it stopped, its ids) comes from there, and
so do the blocks nothing streamed (a refusal, an audio answer's transcript), so
that the message the reply makes is the one ``from_openai_response`` makes of
the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._blocks import TextBlock
from .._checks import describe
from .._enums import GenerateReason
from .._messages import AssistantMessage
from .._reader import as_plain, at, item, json_kind, opt_dict, opt_list, opt_str, req, req_int, req_list
from .._shown import elided
from .._usage import ChatUsage
from ..errors import ArgumentTypeError, DecodeError, StreamError
from ..event import AgentEvent, ReplyEmitter
from ._common import nesting_guard, req_object, sdk_json
from ._responses import from_openai_response

__all__ = ["OpenAIStreamRelay"]

# Chunk fields that describe a chunk, not the answer: the SDK leaves them out of what it gathers.
_CHUNK_ONLY = frozenset({"choices", "object", "obfuscation", "usage"})


class OpenAIStreamRelay:
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
        "_calling",
        "_calls",
        "_choice",
        "_choice_fields",
        "_ended",
        "_fields",
        "_late",
        "_message",
        "_read",
        "_reply",
        "_said",
        "_usage",
    )

    def __init__(self, reply: ReplyEmitter, *, choice: int = 0) -> None:
        """``choice``: the index of the choice to relay, when the request asked for several (``n``)."""
        if not isinstance(reply, ReplyEmitter):
            raise ArgumentTypeError(f"OpenAIStreamRelay relays into a ReplyEmitter, got {describe(reply)}")
        if type(choice) is not int:
            raise ArgumentTypeError(f"choice must be the index of a choice (an int), got {describe(choice)}")
        self._reply = reply
        self._choice = choice
        self._fields: dict[str, Any] | None = None  # the answer's fields, from its first chunk
        self._usage: Any = None  # the last usage a chunk gave
        self._choice_fields: dict[str, Any] = {}  # finish_reason, logprobs
        self._message: dict[str, Any] = {}  # the choice's message so far, gathered as the SDK gathers it
        self._calls: dict[int, str] = {}  # tool call index -> its id, for the calls sent
        self._buffered: list[str] | None = None  # blank text not sent yet: a refusal may take its place
        self._said = False  # whether text that says something, or a call, was sent
        self._calling = False  # whether a tool call was sent
        self._late: list[str] = []  # text that came after a tool call began, sent at the end
        self._ended = False
        self._read: AssistantMessage | None = None  # the whole answer, read at the end

    def __repr__(self) -> str:
        state = "ended" if self._ended else f"{len(self._calls)} tool calls so far"
        return f"<OpenAIStreamRelay choice={self._choice}: {state}>"

    # -- the stream ---------------------------------------------------------------------

    def feed(self, chunk: Any) -> list[AgentEvent]:
        """Relay one chunk; returns the events to send for it (often none: a chunk may carry only a
        role, a usage or a finish reason). Malformed chunks raise :class:`~agentscope_py.DecodeError`
        naming the path, and change nothing."""
        if self._ended:
            raise StreamError("this answer has ended (end() was called): make a new OpenAIStreamRelay for the next one")
        with nesting_guard(""):
            plain = _chunk(chunk)
            if plain is None:
                return []
            delta = self._delta(plain)  # every check before anything changes
            if self._fields is None:
                self._fields = {key: sdk_json(value) for key, value in plain.items() if key not in _CHUNK_ONLY}
            elif plain.get("system_fingerprint") is not None:
                self._fields["system_fingerprint"] = plain["system_fingerprint"]
            if plain.get("usage") is not None:
                self._usage = sdk_json(plain["usage"])
        if delta is None:
            return []
        picked, values, calls = delta
        reply, events = self._reply, []
        if picked.get("finish_reason") is not None:
            self._choice_fields["finish_reason"] = picked["finish_reason"]
        if picked.get("logprobs") is not None:
            _gather(self._choice_fields, {"logprobs": picked["logprobs"]})
        _gather(self._message, values)
        text = values.get("content")
        if isinstance(text, str):
            events += self._text(text)
        for index, call_id, name, fragment in calls:
            if not self._said and self._buffered is not None:
                events += reply.block(TextBlock("".join(self._buffered)))  # the answer's text comes before its calls
                self._buffered = None
            self._said = self._calling = True
            events += reply.tool_call(self._calls.setdefault(index, call_id), name, fragment)
        return events

    def end(self) -> list[AgentEvent]:
        """The answer is over: send what no chunk streamed (a refusal, an audio transcript, text
        that says nothing), end the model call with the answer's usage, and return the events."""
        if self._ended:
            return []
        if self._fields is None:
            raise StreamError("no chunk of the answer came: feed() its chunks before end()")
        read = from_openai_response(self._answer())
        reply, events = self._reply, []
        if not self._said:
            for block in read.content:  # the text, or what the answer says instead, whole
                events += reply.block(block)
        elif self._late:
            events += reply.text("".join(self._late))
        events += reply.end_model_call(read.usage)
        self._read, self._ended = read, True
        return events

    # -- the whole answer, once it is over ------------------------------------------------

    @property
    def usage(self) -> ChatUsage | None:
        """The answer's usage, as :func:`from_openai_response` reads it (sent with the model call's end)."""
        return self._whole().usage

    @property
    def generate_reason(self) -> GenerateReason:
        """``TOOL_CALLS`` for an answer that stopped to call tools, else ``MODEL_STOP``."""
        return self._whole().get_generate_reason()

    @property
    def metadata(self) -> Mapping[str, Any]:
        """The message metadata :func:`from_openai_response` reads from the answer (its fields under
        ``["openai"]["response"]``, so that :func:`stop_reason` tells a truncated answer), without
        the generate reason: ``reply.finish(relay.generate_reason, metadata=relay.metadata)``."""
        metadata = self._whole().metadata
        return {key: value for key, value in metadata.items() if key != AssistantMessage.METADATA_GENERATE_REASON}

    # -- internals ----------------------------------------------------------------------

    def _whole(self) -> AssistantMessage:
        if self._read is None:
            raise StreamError("the answer is not over: call end() once its last chunk has been fed")
        return self._read

    def _delta(self, plain: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any], list[tuple[int, str, str | None, str]]] | None:
        """The relayed choice of ``plain`` (``None`` when the chunk has none), its delta's fields
        and its tool call fragments (index, id, name, arguments), all checked."""
        choices = req_list(req(plain, "choices", ""), "choices")
        for position, entry in enumerate(choices):
            path = item("choices", position)
            picked = req_object(entry, path)
            if req_int(req(picked, "index", path), at(path, "index")) == self._choice:
                break
        else:
            return None
        delta_path = at(path, "delta")
        values = {key: value for key, value in (opt_dict(sdk_json(picked.get("delta")), delta_path) or {}).items() if value is not None}
        _check_indexed(values, delta_path)
        if picked.get("logprobs") is not None:
            _check_indexed(opt_dict(sdk_json(picked["logprobs"]), at(path, "logprobs")), at(path, "logprobs"))
        opt_str(values.get("content"), at(delta_path, "content"))
        opt_str(values.get("refusal"), at(delta_path, "refusal"))
        opt_str(picked.get("finish_reason"), at(path, "finish_reason"))
        calls = []
        calls_path = at(delta_path, "tool_calls")
        for position, raw in enumerate(opt_list(values.get("tool_calls"), calls_path) or []):
            call_path = item(calls_path, position)
            call = req_object(raw, call_path)
            index = req_int(req(call, "index", call_path), at(call_path, "index"))
            function = opt_dict(call.get("function"), at(call_path, "function")) or {}
            if call.get("type") not in (None, "function") or not function and call.get("custom") is not None:
                raise DecodeError(f"only function tool calls are relayed, got a {elided(str(call.get('type')))!s} call", call_path)
            call_id = opt_str(call.get("id"), at(call_path, "id"))
            name = opt_str(function.get("name"), at(call_path, "function.name"))
            fragment = opt_str(function.get("arguments"), at(call_path, "function.arguments")) or ""
            if index not in self._calls and not (call_id and name):
                raise DecodeError(
                    f"the first chunk of tool call {index} must give its id and function name, to send the call on",
                    call_path,
                )
            calls.append((index, call_id or self._calls.get(index, ""), name, fragment))
        return picked, values, calls

    def _text(self, text: str) -> list[AgentEvent]:
        if self._calling:  # text after a call began would close the calls, which may go on: it waits
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
            answer["usage"] = self._usage
        message = {"role": "assistant", **_joined(self._message)}
        choice = {"index": self._choice, **_joined(self._choice_fields), "message": message}
        answer["choices"] = [choice]
        return answer


def _chunk(chunk: Any) -> Mapping[str, Any] | None:
    """``chunk`` as a JSON object; ``None`` for one to skip (Azure's content filter notices)."""
    plain = as_plain(sdk_json(chunk))
    if not isinstance(plain, Mapping):
        hint = "; give the chunks one by one" if isinstance(plain, (list, tuple)) else ""
        raise DecodeError(f"expected a chat.completion.chunk object, got {json_kind(plain)}{hint}")
    kind = plain.get("object")
    if kind == "":  # as the SDK does: Azure sends its asynchronous filter's results so
        return None
    if kind == "chat.completion":
        raise DecodeError("this is a whole answer, not a chunk of one: from_openai_response reads it", "object")
    if kind is not None and kind != "chat.completion.chunk":
        raise DecodeError(f"expected a chat.completion.chunk, got {elided(str(kind))}", "object")
    return plain


class _Text(list[str]):
    """Text gathered from deltas, joined once at the end: appending to a ``str`` is quadratic."""


def _gather(gathered: dict[str, Any], delta: Mapping[str, Any]) -> None:
    """Add ``delta`` to ``gathered``, in place, as the OpenAI SDK adds a chunk's delta to its
    snapshot: text appended, numbers added, objects merged key by key, lists of indexed objects
    merged by index and other lists extended; ``index`` and ``type`` replaced; a value of another
    kind than the one gathered leaves it. ``delta`` is not changed, nor kept: it may be the caller's."""
    for key, value in delta.items():
        current = gathered.get(key)
        if current is None or key in ("index", "type"):
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
    for entry in delta:  # each an object with an index: checked by _check_indexed
        index = entry["index"]
        if index < len(gathered) and isinstance(gathered[index], dict):
            _gather(gathered[index], entry)
        else:
            gathered.insert(index, _fresh(entry))


def _fresh(value: Any) -> Any:
    """``value`` as gathered from nothing: a copy that later deltas may change."""
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


def _check_indexed(value: Any, path: str) -> None:
    """Refuse what cannot be gathered: a list of indexed objects with an entry that is not an object
    with an index (a non-negative int), anywhere in ``value``."""
    if isinstance(value, Mapping):
        for key, entry in value.items():
            _check_indexed(entry, at(path, str(key)))
    elif isinstance(value, list):
        indexed = _indexed(value)
        for position, entry in enumerate(value):
            entry_path = item(path, position)
            if indexed:
                index = req_int(req(req_object(entry, entry_path), "index", entry_path), at(entry_path, "index"))
                if index < 0:
                    raise DecodeError(f"expected an index of 0 or more, got {index}", at(entry_path, "index"))
            _check_indexed(entry, entry_path)


def _number(value: object) -> bool:
    return isinstance(value, (int, float))


def _indexed(value: object) -> bool:
    return isinstance(value, list) and any(isinstance(entry, Mapping) and "index" in entry for entry in value)
