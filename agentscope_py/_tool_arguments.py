"""Reading the raw argument text of a tool call.

Models stream a call's arguments as JSON text.  Everything that turns that text
into ``ToolUseBlock.input`` (the event assembler, the provider converters) goes
through here, so they agree on the rule: the text stays in ``content`` as it
came, ``input`` gets the object it holds, and text that holds no JSON object
leaves ``input`` empty with the reason reported, never silently.  The object comes
back read-only, as a block stores it, so the block takes it without a copy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from ._checks import NestedTooDeeply, check_mapping
from ._frozen import EMPTY, MAX_STORED_DEPTH, frozen_flat
from ._json import encode_value

__all__ = ["UNFINISHED", "StreamedArguments", "parse_tool_arguments", "says_input"]

_orjson_loads: Callable[[str], Any] | None
try:
    from orjson import loads as _orjson_loads
except ImportError:  # the standard library serves alone
    _orjson_loads = None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if value - value != 0.0:  # inf: no JSON number is, and a message holding one cannot be written
        raise ValueError(f"{text} is out of range for a number")
    return value


# The standard library reads NaN, Infinity and 1e400 (as inf): none is JSON.
_stdlib_loads = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float).decode


def _holds_float(value: Any) -> bool:
    if type(value) is float:
        return True
    if type(value) is dict:
        return any(map(_holds_float, value.values()))
    if type(value) is list:
        return any(map(_holds_float, value))
    return False


def _loads(raw: str) -> Any:
    # orjson parses several times faster, but reads integers beyond 64 bits as floats and
    # refuses what the standard library accepts (escaped lone surrogates): text it
    # refuses, or whose result holds a float that may be such an integer, is read again
    # exactly by the standard library, so the result never depends on orjson being installed.
    if _orjson_loads is not None:
        try:
            value = _orjson_loads(raw)
        except ValueError:
            pass
        else:
            if type(value) is dict:
                for item in value.values():  # the common case: text, whole numbers, booleans, nulls
                    kind = type(item)
                    if not (kind is str or kind is int or kind is bool or item is None):
                        break
                else:
                    return frozen_flat(value) if value else EMPTY  # JSON keys are strings: frozen in C
            if not _holds_float(value):
                return value
    return _stdlib_loads(raw)


def parse_tool_arguments(raw: str) -> tuple[Mapping[str, Any], str | None]:
    """The object ``raw`` holds, read-only, and ``None``; or an empty mapping and what is wrong with ``raw``."""
    if raw[-1:] != "}":  # the common case, an object, is let through at once
        stripped = raw.strip(" \t\n\r")  # JSON's whitespace; the same string, uncopied, when there is none
        if stripped[:1] == "{" and stripped[-1:] != "}":
            # A call still streaming looks like this: told without parsing, so that a snapshot after each
            # fragment costs time in the fragment, not in the whole text so far.
            return EMPTY, "not valid JSON (it begins an object but does not end with '}')"
    try:
        value = _loads(raw)
    except ValueError as error:
        return EMPTY, f"not valid JSON ({error})"
    except RecursionError:  # absurdly deep nesting
        return EMPTY, "nested too deeply to parse"
    if not isinstance(value, dict):
        return EMPTY, f"a JSON {type(value).__name__}, not an object"
    try:
        return check_mapping(value, "tool call arguments"), None
    except NestedTooDeeply:  # parsed, but too deep to store: as unusable as too deep to parse
        return EMPTY, f"nested too deeply to store (deeper than {MAX_STORED_DEPTH} levels)"


def says_input(raw: str, tool_input: Mapping[str, Any]) -> bool:
    """Whether ``raw`` parses to exactly ``tool_input``, to its JSON: ``==`` alone takes ``1`` for
    ``true`` or ``1.0``, and ignores the order of keys.  A writer sends a call's raw text only then:
    otherwise the input was changed since, and the text says something else."""
    parsed, problem = parse_tool_arguments(raw)
    return problem is None and parsed == tool_input and encode_value(parsed) == encode_value(tool_input)


#: What is wrong with arguments that :class:`StreamedArguments` finds unfinished.
UNFINISHED = "not valid JSON (it does not close every object, array and string it opens)"

# The characters that open or close something in JSON text; the rest never changes the nesting.
_NESTING = re.compile(r'[{}\[\]"\\]')


class StreamedArguments:
    """Whether the argument text streamed so far leaves an object, array or string open, read one
    fragment at a time.

    A snapshot of a call still streaming would otherwise parse the whole text
    at every fragment that happens to end in ``}`` (an inner object closing):
    time quadratic in the arguments, as a UI rendering each event would see.
    Each fragment is read once, and only for the characters that nest.
    """

    __slots__ = ("_depth", "_escaped", "_first", "_in_string", "_opened", "_read")

    def __init__(self) -> None:
        self._read = 0  # fragments read
        self._depth = 0
        self._in_string = False
        self._escaped = False  # the last fragment ended in a backslash inside a string
        self._opened = False  # whether an object or array was ever opened
        self._first: str | None = None  # the first character that is no JSON whitespace

    def unfinished(self, fragments: list[str]) -> bool:
        """Whether ``fragments`` (the ones given before, then any new ones: the list only grows)
        leave anything open: text that cannot parse, told without parsing it."""
        for fragment in fragments[self._read :]:  # a slice of the new ones (islice would walk the old)
            self._scan(fragment)
        self._read = len(fragments)
        return self._depth > 0 or self._in_string

    @property
    def closed(self) -> bool:
        """Whether the fragments read so far opened something and closed all of it: text that, when it
        is no JSON object, no fragment after can make one (they can only follow what is closed)."""
        return self._opened and self._depth <= 0 and not self._in_string

    @property
    def blank(self) -> bool:
        """Whether the fragments read so far hold nothing but JSON whitespace: no value yet."""
        return self._first is None

    @property
    def never_an_object(self) -> bool:
        """Whether the fragments read so far begin with a value other than an object, which no
        fragment after can make one (``12``, ``"x"``, ``true``…)."""
        return self._first is not None and self._first != "{"

    def _scan(self, text: str) -> None:
        if not text:  # nothing to read, and a backslash just before still escapes what comes next
            return
        if self._first is None:
            significant = text.lstrip(" \t\n\r")
            if significant:
                self._first = significant[0]
        depth, in_string, opened = self._depth, self._in_string, self._opened
        escaped_at = 0 if self._escaped else -1  # the position of a character a backslash escapes
        self._escaped = False
        for match in _NESTING.finditer(text):
            at = match.start()
            if at == escaped_at:
                continue
            char = text[at]
            if in_string:
                if char == '"':
                    in_string = False
                elif char == "\\":
                    escaped_at = at + 1
                    self._escaped = escaped_at == len(text)
            elif char == '"':
                in_string = True
            elif char == "{" or char == "[":
                depth += 1
                opened = True
            elif char == "}" or char == "]":
                depth -= 1
        self._depth, self._in_string, self._opened = depth, in_string, opened
