"""The blocks of a reply in progress, one accumulator per streamed block.

Deltas are appended to lists and joined only when a block is built (for a
snapshot or the final message), so assembling costs time linear in the size of
the stream.  A built block is cached until it changes (a delta, its start or
end), and the text joined so far is kept, so a snapshot per event joins only
what arrived since the previous one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, cast

from .._blocks import (
    ContentBlock,
    DataBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    block_depth,
)
from .._checks import NestedTooDeeply, check_mapping
from .._enums import ToolCallState, ToolResultState
from .._fields import unchecked_init
from .._frozen import EMPTY
from .._ids import new_hex_id
from .._serializable import MAX_BLOCK_DEPTH
from .._shown import shown
from .._sources import Base64Source
from .._tool_arguments import UNFINISHED, StreamedArguments, parse_tool_arguments
from ._stream_keys import BLOCK_KEY, DEFAULT_MEDIA_TYPE, MEDIA_TYPE_KEY, result_marker

__all__ = [
    "BlockAccumulator",
    "DataAccumulator",
    "StreamedText",
    "TextAccumulator",
    "ThinkingAccumulator",
    "ToolCallAccumulator",
    "ToolResultAccumulator",
    "WholeBlock",
]

# Blocks made from values this module made or took from checked events: no type checks again.
_text_block = unchecked_init(TextBlock)
_thinking_block = unchecked_init(ThinkingBlock)
_tool_use_block = unchecked_init(ToolUseBlock)


def _joined(parts: list[str]) -> str:
    if len(parts) == 1:
        return parts[0]
    joined = "".join(parts)
    parts[:] = (joined,)  # the next join starts from here, not from every delta again
    return joined


class BlockAccumulator:
    """One block of a reply, as its events have described it so far."""

    __slots__ = ("block_id", "built", "open", "started")
    kind: ClassVar[str]  # "text", "tool call" …: names the block in anomaly messages
    end_creates: ClassVar[bool] = False  # whether an end without a start creates the block

    # Subclasses call their base's ``__init__`` by name: on Python 3.11 a zero-argument ``super()``
    # costs about a third of a block's constructor, paid by every block a stream starts.
    def __init__(self, block_id: str | None, name: str | None = None) -> None:
        self.block_id = block_id
        self.open = True
        self.started = False  # by its start event; a delta or an end may have created it first
        self.built: ContentBlock | None = None  # cleared by every change, opening and closing too

    def block(self) -> ContentBlock:
        built = self.built
        if built is None:
            built = self.built = self._build()
        return built

    def _build(self) -> ContentBlock:
        raise NotImplementedError

    def take_metadata(self, metadata: Mapping[str, Any] | None) -> list[str]:
        """Apply ``metadata[BLOCK_KEY]`` of a start or end event; returns what was wrong with it."""
        extras = None if metadata is None else metadata.get(BLOCK_KEY)
        if extras is None:
            return []
        if not isinstance(extras, Mapping):
            return [f"metadata[{BLOCK_KEY!r}] must be a mapping, got {type(extras).__name__}"]
        self.built = None
        return self._take(extras)

    def _take(self, extras: Mapping[str, Any]) -> list[str]:
        return []


class StreamedText(BlockAccumulator):
    """A block streamed as text fragments.  ``parts`` is only ever appended to (a run of deltas
    takes back what it appended, see ``Reply.remember_run``), so a run can index into it while a
    snapshot reads it; the text joined so far is kept beside it, so that a snapshot after every
    delta joins only the new parts."""

    __slots__ = ("_joined_count", "_joined_text", "parts")

    def __init__(self, block_id: str | None, name: str | None = None) -> None:
        BlockAccumulator.__init__(self, block_id)
        self.parts: list[str] = []
        self._joined_text = ""
        self._joined_count = 0

    def joined(self) -> str:
        parts = self.parts
        count, done = len(parts), self._joined_count
        if count != done:
            # Most blocks are built once, at their reply's end: joined whole, with no slice copied.
            self._joined_text = "".join(parts) if done == 0 else self._joined_text + "".join(parts[done:])
            self._joined_count = count
        return self._joined_text

    def take_back(self, start: int) -> list[str]:
        """Remove and return the parts from ``start`` on."""
        taken = self.parts[start:]
        del self.parts[start:]
        joined = self._joined_count
        if joined > start:  # the joined text ends with some of them: cut those off, not join all again
            cut = sum(map(len, taken[: joined - start]))
            self._joined_text = self._joined_text[: len(self._joined_text) - cut]
            self._joined_count = start
        return taken


class TextAccumulator(StreamedText):
    __slots__ = ()
    kind = "text"

    def _build(self) -> TextBlock:
        return _text_block(self.joined())


class ThinkingAccumulator(StreamedText):
    __slots__ = ("metadata",)
    kind = "thinking"

    def __init__(self, block_id: str | None, name: str | None = None) -> None:
        StreamedText.__init__(self, block_id)
        self.metadata: Mapping[str, Any] | None = None

    def _take(self, extras: Mapping[str, Any]) -> list[str]:
        if "metadata" not in extras:
            return []
        value = extras["metadata"]
        if value is not None and not isinstance(value, Mapping):
            return [f"a thinking block's metadata must be a mapping or null, got {type(value).__name__}"]
        self.metadata = None if value is None else check_mapping(value, "a thinking block's metadata")
        return []

    def _build(self) -> ThinkingBlock:
        return _thinking_block(self.joined(), self.metadata)


class DataAccumulator(StreamedText):
    """A data block: base64 fragments; the media type from the start event's metadata."""

    __slots__ = ("data_id", "media_type", "name")
    kind = "data"

    def __init__(self, block_id: str | None, name: str | None = None) -> None:
        StreamedText.__init__(self, block_id)
        # A block without an id gets one now, so every snapshot shows the same id.
        self.data_id = block_id or new_hex_id()
        self.media_type = DEFAULT_MEDIA_TYPE
        self.name: str | None = None

    def take_metadata(self, metadata: Mapping[str, Any] | None) -> list[str]:
        media_type = None if metadata is None else metadata.get(MEDIA_TYPE_KEY)
        if isinstance(media_type, str):
            self.media_type = media_type
            self.built = None
        return super().take_metadata(metadata)

    def _take(self, extras: Mapping[str, Any]) -> list[str]:
        problems = []
        media_type = extras.get("media_type", self.media_type)
        if isinstance(media_type, str):
            self.media_type = media_type
        else:
            problems.append(f"a data block's media_type must be a string, got {type(media_type).__name__}")
        name = extras.get("name", self.name)
        if name is None or isinstance(name, str):
            self.name = name
        else:
            problems.append(f"a data block's name must be a string or null, got {type(name).__name__}")
        return problems

    def _build(self) -> DataBlock:
        return DataBlock(Base64Source(self.media_type, self.joined()), self.data_id, self.name)


_NOT_GIVEN: Any = object()
_CALL_STATES = {state.value: state for state in ToolCallState}


class ToolCallAccumulator(StreamedText):
    """A tool call: the raw argument fragments, parsed when the block is built."""

    __slots__ = ("content", "input", "metadata", "name", "nesting", "parsed", "problem", "settled", "state", "state_given")
    kind = "tool call"
    end_creates = True

    def __init__(self, block_id: str | None, name: str | None = None) -> None:
        StreamedText.__init__(self, block_id)
        self.name = name
        self.input: Mapping[str, Any] | None = None  # given outright, instead of parsed
        self.content: str | None = _NOT_GIVEN  # given outright, instead of the fragments
        self.metadata: Mapping[str, Any] = EMPTY  # frozen already: the block takes it as it is
        self.state = ToolCallState.PENDING
        self.state_given = False
        self.problem: str | None = None  # why the arguments are not a JSON object, once built
        self.nesting: StreamedArguments | None = None  # made by the first snapshot while the call streams
        self.settled: str | None = None  # the problem of closed text, which no fragment after can mend
        # (length, input) of the closed text a snapshot parsed into an object, while the call streams:
        # JSON whitespace after it leaves the same object, and anything else a fault that settles.
        self.parsed: tuple[int, Mapping[str, Any]] | None = None

    def _take(self, extras: Mapping[str, Any]) -> list[str]:
        problems = []
        if "state" in extras:
            state = _CALL_STATES.get(extras["state"]) if isinstance(extras["state"], str) else None
            if state is None:
                problems.append(f"a tool call's state must be one of {sorted(_CALL_STATES)}, got {shown(extras['state'])}")
            else:
                self.state, self.state_given = state, True
        for field in ("input", "metadata"):
            if field in extras:
                if isinstance(extras[field], Mapping):
                    setattr(self, field, check_mapping(extras[field], f"a tool call's {field}"))
                else:
                    problems.append(f"a tool call's {field} must be a mapping, got {type(extras[field]).__name__}")
        if "content" in extras:
            if extras["content"] is None or isinstance(extras["content"], str):
                self.content = extras["content"]
            else:
                problems.append(f"a tool call's content must be a string or null, got {type(extras['content']).__name__}")
        return problems

    def final_problem(self) -> str | None:
        """``problem`` as one build of the whole text says it, whatever snapshots came before: a
        settled one is an earlier text's (the same fault, in other words perhaps, "a JSON list"
        before the "]" that followed it), and blank text is unfinished only while more may come."""
        # An input given outright is the call's, whatever its text: the build parses nothing then.
        if self.open and self.input is None and (self.settled is not None or self._blank()):
            nesting = self.nesting
            if nesting is not None and not nesting.blank and nesting.unfinished(self.parts):
                return UNFINISHED  # what a build with nothing settled says of text left open
            return parse_tool_arguments(self.joined())[1]
        return self.problem

    def built_input(self) -> Mapping[str, Any]:
        """The ``input`` of the block as built now."""
        return cast(ToolUseBlock, self.block()).input

    def take_back(self, start: int) -> list[str]:
        self.nesting = self.settled = self.parsed = None  # they read what is taken back: read again from the start
        return StreamedText.take_back(self, start)

    def _unfinished(self) -> bool:
        """Whether the text leaves something open, or holds no value yet (a fragment may still
        make it an object either way): told without parsing it."""
        if self.nesting is None:
            self.nesting = StreamedArguments()
        return self.nesting.unfinished(self.parts) or self.nesting.blank

    def _blank(self) -> bool:
        return self.nesting is not None and self.nesting.blank

    def _build(self) -> ToolUseBlock:
        arguments = self.joined() if self.parts else None
        content = arguments if self.content is _NOT_GIVEN else self.content
        tool_input = self.input
        self.problem = None
        if tool_input is None:
            if arguments is None:
                tool_input = EMPTY
            elif self.open and self._unfinished():  # no need to parse it to know
                tool_input, self.problem = EMPTY, UNFINISHED
            elif self.open and self.settled is not None:
                # Parsed again at every fragment, text that follows a closed value would cost time
                # quadratic in it; its first fault stays where it is.  Parsed once more at the end.
                tool_input, self.problem = EMPTY, self.settled
            elif self.open and self.parsed is not None and not arguments[self.parsed[0] :].strip(" \t\n\r"):
                tool_input = self.parsed[1]  # the same object, followed by whitespace: not parsed again
            else:
                tool_input, self.problem = parse_tool_arguments(arguments)
                # Text that closed what it opened, or began with no object, stays no object.
                nesting = self.nesting
                if self.open and nesting is not None and (nesting.closed or nesting.never_an_object):
                    if self.problem is not None:
                        self.settled = self.problem
                    elif self.parsed is None:
                        self.parsed = (len(arguments), tool_input)
        return _tool_use_block(self.block_id, self.name, tool_input, content, self.metadata, self.state)


class ToolResultAccumulator(BlockAccumulator):
    """A tool result: runs of text deltas (merged) and whole blocks, in arrival order."""

    __slots__ = ("held", "items", "metadata", "name", "state")
    kind = "tool result"
    end_creates = True

    def __init__(self, block_id: str | None, name: str | None = None) -> None:
        BlockAccumulator.__init__(self, block_id)
        self.name = name
        self.items: list[list[str] | ContentBlock] = []
        self.metadata: dict[str, Any] = {}
        self.state = ToolResultState.RUNNING  # as the end event states it
        # The state the block holds, when it is not what the end event states (``_as_java_ends``).
        self.held: ToolResultState | None = None

    def add_text(self, delta: str) -> None:
        items = self.items
        if items and type(items[-1]) is list:
            items[-1].append(delta)
        else:
            items.append([delta])
        self.built = None

    def add_block(self, block: ContentBlock) -> None:
        self.items.append(block)
        self.built = None

    @staticmethod
    def refused_output(block: ContentBlock) -> str | None:
        """Why ``block`` cannot go in a result's output (the result would nest past what a block may
        be), or ``None``."""
        depth = block_depth(block)
        if depth + 2 <= MAX_BLOCK_DEPTH:  # the result's object and its output array
            return None
        return f"its block is nested {depth} levels deep: a tool result holding it would be past the {MAX_BLOCK_DEPTH} a block may be"

    def take_metadata(self, metadata: Mapping[str, Any] | None) -> list[str]:
        # As Java sends it: a result block's metadata is the metadata of its start and end events,
        # but for the state a stream of this package carries beside it: an entry of that shape
        # only (``result_marker``), so that anything else under the key is the result's own metadata.
        if not metadata:
            return []
        marker = result_marker(metadata.get(BLOCK_KEY))
        entries: Mapping[str, Any] = metadata
        if marker is not None:
            entries = {}
            for key, value in metadata.items():  # the result's own entries where the marker stood
                if key == BLOCK_KEY:
                    entries.update(marker[1])
                else:
                    entries[key] = value
        try:  # an event stores values two levels deeper than a block (see ``EVENT_STORED_DEPTH``)
            check_mapping(entries, "its metadata")
        except NestedTooDeeply as error:
            return [f"{error}; the event's metadata is dropped"]
        if marker is not None:
            self.held = marker[0]
        self.metadata.update(entries)
        self.built = None
        return []

    def _build(self) -> ToolResultBlock:
        output = [TextBlock(_joined(item)) if isinstance(item, list) else item for item in self.items]
        return ToolResultBlock(self.block_id, self.name, output, self.metadata, self.held or self.state)


class WholeBlock(BlockAccumulator):
    """A block that arrives in one event (a hint, or a block sent whole in a custom event)."""

    __slots__ = ()
    kind = "whole"

    def __init__(self, block: ContentBlock) -> None:
        BlockAccumulator.__init__(self, None)
        self.open = False
        self.built = block

    def _build(self) -> ContentBlock:  # never called: the block is built from the start
        raise AssertionError("a whole block is always built")
