"""Taking what a reader is given: an SDK object as the JSON it holds, a provider's model answer or a
single message refused where a list of messages was expected, and a payload's faults (nesting too
deep, a value a message cannot store) said as :class:`DecodeError` at their place."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from .._checks import NestedTooDeeply
from .._reader import req_dict
from .._usage import ChatUsage
from ..errors import ArgumentTypeError, ArgumentValueError, DecodeError

__all__ = [
    "ModelAnswer",
    "field_of",
    "model_answer",
    "nesting_guard",
    "read_usage",
    "refuse_answer",
    "refuse_misplaced",
    "req_object",
    "sdk_json",
    "storing",
]


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
