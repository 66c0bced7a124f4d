"""What every writer shares: the unsupported-content policy and the record of what it did, the words
of its refusals, and the result states it writes as an error.

A converter never drops content silently.  When the target format cannot hold
a block it raises :class:`UnsupportedContentError`, unless the caller chose a
policy with ``on_unsupported``; then the payload it returns is a
:class:`Converted` list or :class:`ConvertedDict` whose ``notes`` say, block by
block, what was dropped or turned into text.
"""

from __future__ import annotations

from collections.abc import Iterable
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
from .._checks import describe
from .._enums import ToolResultState
from .._messages import Msg
from .._shown import elided
from .._sources import Base64Source, Source, URLSource
from ..errors import (
    ArgumentTypeError,
    ArgumentValueError,
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
    "OnUnsupported",
    "as_message_list",
    "block_as_text",
    "check_policy",
    "file_id_hint",
    "in_message",
    "media_type_hint",
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
