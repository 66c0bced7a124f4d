"""What every converter shares: the unsupported-content policy and the record of what it did.

A converter never drops content silently.  When the target format cannot hold
a block it raises :class:`UnsupportedContentError`, unless the caller chose a
policy with ``on_unsupported``; then the payload it returns is a
:class:`Converted` list or :class:`ConvertedDict` whose ``notes`` say, block by
block, what was dropped or turned into text.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

import attrs

from .._blocks import (
    AudioBlock,
    ContentBlock,
    DataBlock,
    HintBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    VideoBlock,
)
from .._checks import NestedTooDeeply, describe
from .._enums import ToolResultState
from .._messages import Msg
from .._reader import as_plain, at, item, json_kind, req_dict
from .._serializable import DEFAULT_LIMITS
from .._shown import elided, shown
from .._sources import Base64Source, Source, URLSource
from .._usage import ChatUsage
from ..errors import (
    ArgumentTypeError,
    ArgumentValueError,
    DecodeError,
    UnsupportedContentError,
)
from ._call_arguments import arguments_text
from ._media_types import fetchable, unusable_media_type, url_media_type

__all__ = [
    "ERROR_RESULT",
    "ERROR_STATES",
    "NOT_AN_OBJECT",
    "Conversion",
    "ConversionNote",
    "Converted",
    "ConvertedDict",
    "ModelAnswer",
    "OnUnsupported",
    "as_message_list",
    "block_as_text",
    "check_policy",
    "field_of",
    "file_id_hint",
    "in_message",
    "media_type_hint",
    "model_answer",
    "nesting_guard",
    "read_usage",
    "refuse_answer",
    "refuse_misplaced",
    "req_object",
    "sdk_json",
    "storing",
    "url_hint",
]

#: ``"raise"`` (the default): refuse; ``"drop"``: leave the block out; ``"text"``: put a text rendering in its place.
OnUnsupported = Literal["raise", "drop", "text"]
_POLICIES = ("raise", "drop", "text")


@attrs.frozen
class ConversionNote:
    """One block a converter could not carry as it was."""

    message_index: int
    block_index: int
    block_type: str
    action: Literal["dropped", "as_text"]
    target: str
    #: The block's index in the output of the tool result at ``block_index``, when it stood there.
    output_index: int | None = None

    def __str__(self) -> str:
        done = "dropped" if self.action == "dropped" else "sent as text"
        where = _location(self.message_index, self.block_index, self.output_index)
        return f"{where}: {self.block_type} block {done} ({self.target} cannot hold it)"


#: What makes a block other than text unfit in a result sent as an error (Anthropic, Vercel AI: text only).
ERROR_RESULT = " in an error result, which holds text only"
#: What makes a call unfit for the formats that hold its arguments as an object (Anthropic, AgentFlow,
#: swarm-kit): raw text that holds none.
NOT_AN_OBJECT = " whose arguments are not a JSON object"
#: The result states written as an error by the formats that tell only success from error.
ERROR_STATES = (ToolResultState.ERROR, ToolResultState.INTERRUPTED, ToolResultState.DENIED)


def in_message(kind: str) -> str:
    """What makes a block unfit, said by the turn it stands in: ``" in an assistant message"``."""
    return f" in {'an' if kind[0] in 'aeiou' else 'a'} {kind} message"


def _location(message_index: int, block_index: int, output_index: int | None) -> str:
    inner = "" if output_index is None else f".output[{output_index}]"
    return f"messages[{message_index}].content[{block_index}]{inner}"


class Converted(list[Any]):
    """A converted payload (a list, usable wherever the list is) and the ``notes`` on what changed."""

    __slots__ = ("notes",)

    def __init__(self, items: Iterable[Any] = (), notes: Iterable[ConversionNote] = ()) -> None:
        super().__init__(items)
        self.notes: tuple[ConversionNote, ...] = tuple(notes)


class ConvertedDict(dict[str, Any]):
    """A converted payload (a dict, usable wherever the dict is) and the ``notes`` on what changed."""

    __slots__ = ("notes",)

    def __init__(self, items: dict[str, Any] | None = None, notes: Iterable[ConversionNote] = ()) -> None:
        super().__init__(items or {})
        self.notes: tuple[ConversionNote, ...] = tuple(notes)


def as_message_list(messages: Iterable[Msg[Any]]) -> list[Msg[Any]]:
    """The caller's messages as a list, each checked to be a message with a role: every converter
    and conversation check takes its argument through here."""
    if isinstance(messages, Msg):
        # A message is no list of messages, though it may look like one (iterating it would fail).
        raise ArgumentTypeError(
            f"expected a list of messages, got a single {type(messages).__name__}; wrap it in a list: [msg]"
        )
    if not isinstance(messages, Iterable):
        raise ArgumentTypeError(f"expected a list of messages, got {describe(messages)}")
    out = list(messages)
    for index, message in enumerate(out):
        if not isinstance(message, Msg):
            raise ArgumentTypeError(f"messages[{index}] must be a Msg, got {describe(message)}")
        if message.role is None:
            raise ArgumentValueError(
                f"messages[{index}] has no role; give it one (UserMessage, AssistantMessage, …) to convert it"
            )
    return out


def field_of(value: object, name: str) -> Any:
    """The field ``name`` of a dict or of an SDK object, read without converting the rest of it
    (``None`` when it has none)."""
    return value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)


def sdk_json(value: object) -> object:
    """An SDK object (a pydantic model, as the OpenAI and Anthropic SDKs return answers, messages and
    blocks) as the JSON it holds, with only the fields that were set: its plain ``model_dump()`` would
    add a null for every field the server left out.  Any other value as it is.  Duck-typed, so that
    the SDKs are never imported."""
    if type(value) is dict:
        return value
    dump = getattr(value, "model_dump", None)
    if not callable(dump):
        return value
    try:
        # No warnings: the SDK's parse() answers type "parsed" loosely, and warns when it is dumped.
        return dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    except (TypeError, ValueError, AttributeError):  # no pydantic model after all: refused below as what it is
        return value


@attrs.frozen
class ModelAnswer:
    """A provider's model answer, where messages were expected: what it is, and its reader."""

    what: str
    reader: str | None  # None: no reader of this library takes it

    @property
    def advice(self) -> str:
        if self.reader is None:
            return "this library reads OpenAI Chat Completions answers (client.chat.completions.create), not these"
        return f"read it with {self.reader}"


# Each told by the fields all its answers have: an OpenAI answer has no role (its message has), and an
# Anthropic one is an assistant's message with a model, a stop reason and a usage, which a message
# with a key or two of those added is not.
_ANSWERS: tuple[tuple[Callable[[Mapping[str, Any]], bool], ModelAnswer], ...] = (
    (
        lambda fields: "choices" in fields and "role" not in fields,
        ModelAnswer("an OpenAI Chat Completions answer", "from_openai_response"),
    ),
    (
        lambda fields: fields.get("object") == "response" and "role" not in fields,
        ModelAnswer("an OpenAI Responses API answer", None),
    ),
    (
        lambda fields: fields.get("type") == "message"
        and fields.get("role") == "assistant"
        and {"model", "stop_reason", "usage"} <= fields.keys(),
        ModelAnswer("an Anthropic Messages answer", "from_anthropic_response"),
    ),
)


def model_answer(fields: Mapping[str, Any]) -> ModelAnswer | None:
    """The model answer ``fields`` are, or ``None`` when they are none."""
    return next((answer for test, answer in _ANSWERS if test(fields)), None)


def refuse_answer(fields: Mapping[str, Any], path: str, own: str | None = None) -> None:
    """Refuse a model answer standing where a message was expected, saying which reader takes it;
    but for one of the reader ``own`` names, which is a message of the history too (an Anthropic
    answer appended to the messages it answers)."""
    answer = model_answer(fields)
    if answer is not None and answer.reader != own:
        raise DecodeError(f"got {answer.what} where a message was expected; {answer.advice}", path)


def refuse_misplaced(payload: object, path: str) -> None:
    """Where a reader of conversations was given an object, refuse one that is a single message, a
    request or state holding the list, or a provider's model answer, saying what to pass instead:
    "expected an array, got object" would leave the caller guessing."""
    fields = sdk_json(payload)
    if not isinstance(fields, Mapping):
        return
    answer = model_answer(fields)
    if answer is not None:
        raise DecodeError(f"expected a list of messages, got {answer.what}; {answer.advice}", path)
    if "role" in fields:
        raise DecodeError("expected a list of messages, got a single message; wrap it in a list: [message]", path)
    if "messages" in fields:
        raise DecodeError("expected a list of messages, got an object holding one; pass its 'messages'", path)


def req_object(value: object, path: str) -> dict[str, Any]:
    """``req_dict`` that reads an SDK object (see :func:`sdk_json`) as the JSON object it holds."""
    return req_dict(sdk_json(value), path)


def check_policy(on_unsupported: str) -> OnUnsupported:
    if not isinstance(on_unsupported, str):
        raise ArgumentTypeError(
            f"on_unsupported must be one of {', '.join(map(repr, _POLICIES))}, got {describe(on_unsupported)}"
        )
    if on_unsupported not in _POLICIES:
        raise ArgumentValueError(
            f"on_unsupported must be one of {', '.join(map(repr, _POLICIES))}, got {elided(on_unsupported)}"
        )
    return on_unsupported  # type: ignore[return-value]


class Conversion:
    """One ``to_x`` call: the target's name, the caller's policy and the notes it produced."""

    __slots__ = ("notes", "policy", "target")

    def __init__(self, target: str, on_unsupported: OnUnsupported) -> None:
        self.target = target
        self.policy = check_policy(on_unsupported)
        self.notes: list[ConversionNote] = []

    def refuse(
        self,
        message_index: int,
        block_index: int,
        block: ContentBlock,
        output_index: int | None = None,
        why: str = "",
        hint: str = "",
    ) -> str | None:
        """Apply the policy to a block the target cannot hold: the one at ``block_index``, or inside
        the tool result there, at ``output_index`` of its output.  ``why`` says what makes it unfit
        where it is (" in an assistant message"), when the target holds such blocks elsewhere;
        ``hint``, after the place, what about the block itself makes it unfit (": its data is not
        valid base64"), when its kind alone does not say.

        Returns the text to send in its place (policy ``"text"``), ``None`` to drop it
        (``"drop"``), or raises (``"raise"``).  Either way the choice is recorded in ``notes``.
        """
        if self.policy == "raise":
            if output_index is not None and not why:
                why = " in a tool result's output"
            where = _location(message_index, block_index, output_index)
            raise UnsupportedContentError(
                f"{self.target} cannot hold {_described(block)}{why} ({where}){hint}; "
                "pass on_unsupported='drop' or 'text' to convert anyway"
            )
        action: Literal["dropped", "as_text"] = "as_text" if self.policy == "text" else "dropped"
        self.notes.append(ConversionNote(message_index, block_index, block.type, action, self.target, output_index))
        return block_as_text(block) if self.policy == "text" else None


def _described(block: ContentBlock) -> str:
    """``a ThinkingBlock``, ``an AudioBlock of audio/ogg``, ``a DataBlock by URL``: what was refused."""
    name = type(block).__name__
    text = f"{'an' if name[0] in 'AEIOU' else 'a'} {name}"
    source = getattr(block, "source", None)  # the media blocks'
    if isinstance(source, Base64Source):
        return f"{text} of {source.media_type or 'no media type'}"
    if isinstance(source, URLSource):
        return f"{text} by URL" + (f" ({source.mime_type})" if source.mime_type else "")
    return text


def url_hint(block: ContentBlock) -> str:
    """For :meth:`Conversion.refuse`: what about the URL of a media block made a writer refuse it, when
    its kind alone does not say; ``""`` for any other block.  A URL without a scheme is a file id (see
    :func:`file_id_hint`); a DataBlock's URL that declares no type has the one its file extension
    names (a ``data:`` URL's, the one it states), which the error then says."""
    source = getattr(block, "source", None)  # the media blocks'
    if not isinstance(source, URLSource):
        return ""
    if not fetchable(source):
        return file_id_hint(block)
    guessed = url_media_type(source.url) if isinstance(block, DataBlock) and source.mime_type is None else None
    if guessed is None:
        return ""
    return f": {'its data: URL' if source.url[:5].lower() == 'data:' else 'its file extension'} says {guessed}"


def media_type_hint(block: ContentBlock) -> str:
    """For :meth:`Conversion.refuse`: why a media block of inline data whose media type is no media
    type is refused; ``""`` for any other block."""
    source = getattr(block, "source", None)  # the media blocks'
    unusable = None if source is None else unusable_media_type(source)
    if unusable is None:
        return ""
    return (
        f": its media type {elided(unusable)} is no media type such as 'image/png' "
        "(Base64Source takes the media type first, then the data)"
    )


def file_id_hint(block: ContentBlock) -> str:
    """For :meth:`Conversion.refuse`: why a media block whose URL has no scheme is refused (a file id,
    which its format knows as one only from the message it was read with); ``""`` for any other block."""
    source = getattr(block, "source", None)  # the media blocks'
    if not isinstance(source, URLSource) or fetchable(source):
        return ""
    return (
        f": {elided(source.url)} has no scheme, so it is a file id, not a URL; a file id goes back only to the "
        "format it was read from, in the message it was read with (or one given that message's metadata)"
    )


def _source_text(source: Source | None) -> str:
    if isinstance(source, URLSource):
        return source.url
    if isinstance(source, Base64Source):
        return f"{source.media_type}, {len(source.data)} base64 characters"
    return "no source"


def block_as_text(block: ContentBlock) -> str:
    """A readable stand-in for a block, for ``on_unsupported="text"``."""
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, ThinkingBlock):
        return f"[thinking] {block.thinking}"
    if isinstance(block, HintBlock):
        return f"[hint] {block.hint or ''}"
    if isinstance(block, (DataBlock, ImageBlock, AudioBlock, VideoBlock)):
        return f"[{block.type}: {_source_text(block.source)}]"
    if isinstance(block, ToolUseBlock):
        # The arguments as the call's JSON text, as the formats with calls write them: True, None or
        # a Python repr would reach the model as no JSON.
        return f"[tool call {block.name} {block.id}: {arguments_text(block)}]"
    if isinstance(block, ToolResultBlock):
        inner = "\n".join(block_as_text(b) for b in block.output)
        return f"[tool result {block.name} {block.id} ({block.state.value})]\n{inner}"
    return f"[{block.type}]"


# Context managers as classes, not @contextmanager generators: a relay enters one for every event
# it reads, and a generator's frame costs three times the class's two calls (~1 us against ~0.3 us).


class nesting_guard:  # lower case, as contextlib.suppress: used as a function is
    """Around reading a whole payload: nesting past Python's recursion limit, met by the readers
    or by storing what they read, is a :class:`DecodeError` at ``path``; so is a value read that a
    message cannot store (NaN in a carried field, a count beyond a Java int): see :class:`storing`."""

    __slots__ = ("path",)

    def __init__(self, path: str = "messages") -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: object) -> None:
        if kind is None:
            return
        if issubclass(kind, (RecursionError, NestedTooDeeply)):
            raise DecodeError("the payload is nested too deeply to read", self.path) from None
        if issubclass(kind, (ArgumentTypeError, ArgumentValueError)):
            raise DecodeError(str(error), self.path) from None


class storing:
    """Around making one message of a payload: a value it cannot store is the payload's fault, a
    :class:`DecodeError` at ``path`` (the message), not an argument error of ours.  (Nesting too
    deep is left to :class:`nesting_guard`, which words it for the whole payload.)"""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: object) -> None:
        if kind is None or issubclass(kind, NestedTooDeeply):
            return
        if issubclass(kind, (ArgumentTypeError, ArgumentValueError)):
            raise DecodeError(str(error), self.path) from None


def read_usage(path: str, input_tokens: int, output_tokens: int, cached_tokens: int, time: float = 0.0) -> ChatUsage:
    """The usage of counts read at ``path``: a count beyond a Java int, which AgentScope holds token
    counts in (a sum of cache counts, say), is a :class:`DecodeError` there, not at the message."""
    with storing(path):
        return ChatUsage(input_tokens, output_tokens, cached_tokens, time)


_MAX_INDEX = 2**31 - 1  # past any list a stream builds: an index beyond it is a fault, not a position


def json_copy(value: Any) -> Any:
    """A streamed event or chunk ``value`` as plain JSON (dicts, lists, str, int, finite float, bool,
    None; a date or time as its text, see ``time_as_json``), copied, so that gathering it never changes
    the caller's; what is no JSON, or nests deeper than the decoder's default limit, is a
    :class:`DecodeError` at its path. In a list of indexed objects (a stream's
    way of saying where a delta goes) every entry must carry an index from 0 to a Java int's max."""
    try:
        return _json_copy(value, DEFAULT_LIMITS.max_depth)
    except _NotJson as error:
        path = ""
        for step in reversed(error.steps):  # the path is made only for an error: most values have none
            path = at(path, step) if isinstance(step, str) else item(path, step)
        raise DecodeError(error.problem, path) from None


def time_as_json(value: datetime.date | datetime.time) -> str:
    """A date or time as the text the JSON it was parsed from held: ISO 8601, ``Z`` for UTC, as the
    SDKs' ``model_dump(mode="json")`` writes them (a ``Container``'s ``expires_at`` is a ``datetime``
    in its plain ``model_dump()``)."""
    text = value.isoformat()
    if isinstance(value, (datetime.datetime, datetime.time)) and value.utcoffset() == datetime.timedelta(0):
        return text[:-6] + "Z"  # for "+00:00"
    return text


class _NotJson(Exception):
    def __init__(self, problem: str) -> None:
        self.problem = problem
        self.steps: list[str | int] = []  # from the value at fault out, collected on the way


def _json_copy(value: Any, depth: int) -> Any:
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        if value - value != 0.0:  # inf - inf and NaN - NaN are NaN
            raise _NotJson(f"{value} is not a JSON number")
        return value
    if kind is not dict and kind is not list and kind is not tuple:
        if isinstance(value, Mapping):
            return _json_copy(dict(value), depth)
        if isinstance(value, (datetime.date, datetime.time)):  # in an SDK event's model_dump()
            return time_as_json(value)
        plain = as_plain(value)  # a str subclass or an enum member, in a chunk built in Python
        if plain is value:
            raise _NotJson(f"expected a JSON value, got {kind.__name__}")
        return _json_copy(plain, depth)
    if depth <= 0:
        raise _NotJson(f"nested deeper than {DEFAULT_LIMITS.max_depth} levels")
    if kind is dict:
        copy = {}
        for key, entry in value.items():
            if type(key) is not str:
                raise _NotJson(f"object keys must be strings, got {json_kind(key)} {shown(key)}")
            try:
                copy[key] = _json_copy(entry, depth - 1)
            except _NotJson as error:
                error.steps.append(key)
                raise
        return copy
    entries = []
    for position, entry in enumerate(value):
        try:
            entries.append(_json_copy(entry, depth - 1))
        except _NotJson as error:
            error.steps.append(position)
            raise
    if any(type(entry) is dict and "index" in entry for entry in entries):
        for position, entry in enumerate(entries):
            problem = _index_problem(entry)
            if problem is not None:
                fault = _NotJson(problem)
                fault.steps += ["index", position] if type(entry) is dict and "index" in entry else [position]
                raise fault
    return entries


def _index_problem(entry: object) -> str | None:
    """What is wrong with an entry of a list of indexed objects, if anything."""
    if type(entry) is not dict:
        return f"expected an object, got {json_kind(entry)}"
    if "index" not in entry:
        return "missing required key 'index'"
    index = entry["index"]
    if type(index) is not int:
        return f"expected an integer, got {json_kind(index)}"
    if not 0 <= index <= _MAX_INDEX:
        return f"expected an index from 0 to {_MAX_INDEX}, got {index}"
    return None
