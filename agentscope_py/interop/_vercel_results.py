"""Tool results in the Vercel AI SDK's shape: a ``tool-result`` part's ``output``, and the
output list of a tool message as Codebuff writes it.

An output is ``text``/``error-text``, ``json``/``error-json``, ``content`` (text
and media items) or, since AI SDK 6, ``execution-denied``; Codebuff's list holds
``json`` and ``media`` items.  A JSON value is held as its text; the value
itself is carried and written back while the text still reads the same.  An
item read in another form than the one our AI SDK 6 writer gives (AI SDK 6's
``image-data``, AI SDK 7's ``file`` with tagged data, say) carries only that
form, a mark (:data:`MEDIA_FORM`), in the result's :data:`PARTS` by its index in
the output, beside the fingerprint of the block it was read into (:data:`PART_OF`):
so it goes back as it came while that block stands there, for AI SDK 6 and 7,
and never spells another.  Its other fields ours miss are carried there
too.  Items that name a file the
provider holds (``file-id``, ``image-file-id``, AI SDK 7's ``file-reference``,
``image-file-reference`` and ``file`` with a ``reference``) or are a provider's
own (``custom``) are no block of ours: the result carries them whole, by their
index in the list, and they are written back there.

Media we write are spelled for the ``ai`` version asked for (``medium_item``):
AI SDK 5 takes only ``media`` items, 7 refuses them, and 6's Anthropic provider
drops an image sent as ``file-data``.  AI SDK 5 refuses a prompt holding any
spelling of 6's or 7's: for it, an item read in one is spelled as ours, an item
carried whole goes through the policy, and a denial is an ``error-text``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._blocks import (
    ContentBlock,
    DataBlock,
    TextBlock,
    ToolResultBlock,
)
from .._enums import ToolResultState
from .._frozen import thawed
from .._reader import at, item, opt_str, req, req_dict, req_list, req_str
from .._shown import elided
from .._sources import Base64Source, URLSource
from ..errors import DecodeError, UnsupportedContentError
from ._carried_fields import BLOCKS, MEDIA_FORM, PART_OF, PARTS, RAN_BY_PROVIDER, diff, overlay, part_extras
from ._carry import fingerprint, position
from ._common import ERROR_RESULT, ERROR_STATES, Conversion, ConversionNote
from ._frameworks import json_text, same_blocks
from ._media_types import check_media_type
from ._vercel_media import AiSdk, item_form, medium_item, read_tagged_data, spelled_item

__all__ = [
    "TARGET",
    "read_codebuff_result",
    "read_result_part",
    "render_codebuff_result",
    "write_codebuff_result",
    "write_result_part",
]

TARGET = "the Vercel AI SDK"
#: AI SDK 6's output for a call the user refused.
_DENIED = "execution-denied"
#: The outputs AI SDK 5 takes, and the items of its content output: it refuses a prompt holding another.
_AI_5_OUTPUTS = ("text", "json", "error-text", "error-json", "content")
_AI_5_ITEMS = ("text", "media")
#: The version whose spelling a result is rendered in when read: its carried fields are what that
#: rendering misses, so they are laid over that rendering whatever version is written.
_READ_AS: AiSdk = 6
#: A result's bookkeeping, never written as its fields.
_BOOKKEEPING = (RAN_BY_PROVIDER, BLOCKS, PARTS, PART_OF)


def read_result_part(part: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    """A ``tool-result`` part's block and its hints: the output items it keeps whole (:data:`BLOCKS`),
    and for AI SDK 6's ``execution-denied`` that spelling, which the writer keeps while the block is a
    denial.  So the part is rendered as it will be written once the block carries its fields, and what
    that rendering misses (an output field of no type's, beside the ``reason``) is carried against it."""
    call_id = req_str(req(part, "toolCallId", path), at(path, "toolCallId"))
    name = req_str(req(part, "toolName", path), at(path, "toolName"))
    output, state, kept, items = _read_output(req(part, "output", path), at(path, "output"))
    hints: dict[str, Any] = {BLOCKS: kept} if kept else {}
    hints.update(_item_marks(output, items, _READ_AS))
    if state is ToolResultState.DENIED:
        hints["output"] = {"type": _DENIED}
    return ToolResultBlock(call_id, name, output, state=state), hints


_Read = tuple[tuple[ContentBlock, ...], dict[str, Any], list[dict[str, Any]]]


def _read_output(
    value: object, path: str
) -> tuple[tuple[ContentBlock, ...], ToolResultState, dict[str, Any], list[dict[str, Any]]]:
    """The blocks and state of an output; of a ``content`` output also the items kept whole, by
    index, and the item each block was read from."""
    output = req_dict(value, path)
    kind = req_str(req(output, "type", path), at(path, "type"))
    value_path = at(path, "value")
    blocks: tuple[ContentBlock, ...]
    kept: dict[str, Any] = {}
    items: list[dict[str, Any]] = []
    if kind in ("text", "error-text"):
        blocks = (TextBlock(req_str(req(output, "value", path), value_path)),)
    elif kind in ("json", "error-json"):
        blocks = (TextBlock(json_text(req(output, "value", path), at(path, "value"))),)
    elif kind == "content":
        blocks, kept, items = _read_items(req(output, "value", path), value_path)
    elif kind == _DENIED:  # AI SDK 6: the user refused the call its approval request asked for
        reason = opt_str(output.get("reason"), at(path, "reason"))
        return (() if reason is None else (TextBlock(reason),)), ToolResultState.DENIED, {}, []
    else:
        raise DecodeError(
            f"unknown output type {elided(kind)}; expected text, json, error-text, error-json, content or execution-denied",
            at(path, "type"),
        )
    return blocks, ToolResultState.ERROR if kind.startswith("error") else ToolResultState.SUCCESS, kept, items


def _read_items(value: object, path: str) -> _Read:
    """The blocks of an output list, its items that are no block, whole, by their index, and the
    item each block was read from."""
    blocks: list[ContentBlock] = []
    kept: dict[str, Any] = {}
    items: list[dict[str, Any]] = []
    for index, entry in enumerate(req_list(value, path)):
        block = read_output_item(entry, item(path, index))
        if block is None:
            kept[str(index)] = req_dict(entry, item(path, index))
        else:
            blocks.append(block)
            items.append(entry)  # read_output_item checked that it is an object
    return tuple(blocks), kept, items


def _item_marks(blocks: tuple[ContentBlock, ...], items: list[dict[str, Any]], ai_sdk: AiSdk | None) -> dict[str, Any]:
    """The hints of the items ``blocks`` were read from (``ai_sdk``: the list's version, ``None`` for
    Codebuff's): what writing each block as we do misses, by its index in the output (:data:`PARTS`),
    and the fingerprint of the block, which the hints go back with only (:data:`PART_OF`)."""
    entries: dict[str, Any] = {}
    blocks_of: dict[str, str] = {}
    for index, (block, entry) in enumerate(zip(blocks, items)):
        missed = _item_mark(block, entry, ai_sdk)
        if missed:
            entries[str(index)], blocks_of[str(index)] = missed, fingerprint(block)
    return {PARTS: entries, PART_OF: blocks_of} if entries else {}


def _item_mark(block: ContentBlock, entry: dict[str, Any], ai_sdk: AiSdk | None) -> dict[str, Any]:
    """What writing ``block`` as we do misses of the item it was read from: the item's form when
    ours is another (the spelling, not the data), and the fields the item in its form lacks."""
    ours = _our_item(block, ai_sdk)
    if ours == entry:
        return {}
    form = item_form(entry)
    if ours is not None and item_form(ours) == form:
        return diff(ours, entry)
    spelled = spelled_item(block, form)
    assert spelled is not None, form  # every form read holds the block read from it
    return {**diff(spelled, entry), MEDIA_FORM: form}


def read_output_item(value: object, path: str) -> ContentBlock | None:
    """The block an output item holds; ``None`` for an item kept whole (see the module's docstring)."""
    entry = req_dict(value, path)
    kind = req_str(req(entry, "type", path), at(path, "type"))
    if kind in ("text", "json"):  # "text" in a content output, "json" in Codebuff's list
        if kind == "text":
            return TextBlock(req_str(req(entry, "text", path), at(path, "text")))
        return TextBlock(json_text(req(entry, "value", path), at(path, "value")))
    if kind in ("media", "image-data", "file-data"):  # the last two: AI SDK 6's spelling of "media"
        media_type = req_str(req(entry, "mediaType", path), at(path, "mediaType"))
        check_media_type(media_type, at(path, "mediaType"))
        source = Base64Source(media_type, req_str(req(entry, "data", path), at(path, "data")))
        return DataBlock(source, name=opt_str(entry.get("filename"), at(path, "filename")))
    if kind in ("image-url", "file-url"):  # AI SDK 6
        url = req_str(req(entry, "url", path), at(path, "url"))
        return DataBlock(URLSource(url, opt_str(entry.get("mediaType"), at(path, "mediaType"))))
    if kind == "file":  # AI SDK 7: tagged data
        return _read_file_item(entry, path)
    if kind in ("file-id", "image-file-id"):  # AI SDK 6: one id, or one per provider
        ids = req(entry, "fileId", path)
        if not isinstance(ids, str):
            _read_ids(ids, at(path, "fileId"))
        return None
    if kind in ("file-reference", "image-file-reference"):  # AI SDK 7: one id per provider
        _read_ids(req(entry, "providerReference", path), at(path, "providerReference"))
        return None
    if kind == "custom":  # AI SDK 6: a provider's own item, all in its providerOptions
        return None
    raise DecodeError(
        f"unknown output part type {elided(kind)}; expected text, json, media, image-data, file-data, image-url, "
        "file-url, file, file-id, image-file-id, file-reference, image-file-reference or custom",
        at(path, "type"),
    )


def _read_file_item(entry: dict[str, Any], path: str) -> ContentBlock | None:
    """AI SDK 7's ``file`` item: a block for inline data or a URL, ``None`` (kept whole) for a
    provider reference, which names a file only its provider holds."""
    media_type = req_str(req(entry, "mediaType", path), at(path, "mediaType"))
    data_path = at(path, "data")
    data = req_dict(req(entry, "data", path), data_path)
    if data.get("type") == "reference":
        _read_ids(req(data, "reference", data_path), at(data_path, "reference"))
        return None
    source, _ = read_tagged_data(data, data_path, media_type)
    return DataBlock(source, name=opt_str(entry.get("filename"), at(path, "filename")))


def _read_ids(value: object, path: str) -> None:
    """Check a file id per provider: ``{provider: id}``."""
    for provider, file_id in req_dict(value, path).items():
        req_str(file_id, at(path, provider))


def read_codebuff_result(layout: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    call_id = req_str(req(layout, "toolCallId", path), at(path, "toolCallId"))
    name = req_str(req(layout, "toolName", path), at(path, "toolName"))
    output, kept, items = _read_items(req(layout, "content", path), at(path, "content"))
    hints: dict[str, Any] = {BLOCKS: kept} if kept else {}
    hints.update(_item_marks(output, items, None))
    return ToolResultBlock(call_id, name, output, state=ToolResultState.SUCCESS), hints


def write_result_part(
    conversion: Conversion,
    message_index: int,
    block_index: int,
    block: ToolResultBlock,
    extras: Mapping[str, Any],
    ai_sdk: AiSdk = _READ_AS,
) -> dict[str, Any]:
    """A ``tool-result`` part, its media spelled for ``ai_sdk``; ``extras``: the fields the block carries."""
    marks = _Marks(extras)
    extras = {key: value for key, value in extras.items() if key not in _BOOKKEEPING}
    carried_output = extras.get("output")
    denial = isinstance(carried_output, Mapping) and carried_output.get("type") == _DENIED

    def render(using: Conversion, version: AiSdk) -> dict[str, Any]:
        return {
            "type": "tool-result",
            "toolCallId": block.id or "",
            "toolName": block.name or "",
            "output": _write_output(using, message_index, block_index, block, marks, version, denial=denial),
        }

    return _agreeing(render, conversion, extras, block, _output_reads_as, "output", ai_sdk)


class _Marks:
    """What a result carries of its output list: the items that are no block (:data:`BLOCKS`), and
    the hints of those read into its blocks (:data:`PARTS`), each for the block it was read into."""

    __slots__ = ("_carried", "kept")

    def __init__(self, carried: Mapping[str, Any]) -> None:
        self.kept = _kept(carried.get(BLOCKS))
        self._carried = carried

    def item(self, index: int, inner: ContentBlock, ai_sdk: AiSdk | None) -> dict[str, Any] | None:
        """The item for output block ``index``: in the form it came in while it is the block read
        there, else ours for ``ai_sdk``, with the fields it carries; ``None`` where ours holds none."""
        hints = part_extras(self._carried, index, inner)
        form = hints.get(MEDIA_FORM)
        # AI SDK 5 takes none of 6's and 7's spellings: for it, an item read in one is spelled anew.
        came_as = spelled_item(inner, form) if ai_sdk != 5 or form in _AI_5_ITEMS else None
        rendered = came_as or _our_item(inner, ai_sdk)
        if rendered is None:
            return None
        # The form is ours to apply, no field of the item's.
        return overlay(rendered, {key: value for key, value in hints.items() if key != MEDIA_FORM})


def _agreeing(
    render: Callable[[Conversion, AiSdk], dict[str, Any]],
    conversion: Conversion,
    extras: Mapping[str, Any],
    block: ToolResultBlock,
    reads_as: Callable[[object, ToolResultBlock], bool],
    key: str,
    ai_sdk: AiSdk,
) -> dict[str, Any]:
    """The rendering with the carried fields laid over it; the carried spelling of the output (a JSON
    value, a content list holding one text, say) while it still reads as what the block holds, and then without
    applying the policy to what the carried spelling holds and ours could not.  The carried fields
    are laid over the rendering they were read against (:data:`_READ_AS`): a spelling that came in
    goes back whatever ``ai_sdk`` asks for, if that version takes it; ours is rendered for ``ai_sdk``."""
    if key in extras:
        candidate = overlay(render(Conversion(TARGET, "drop"), _READ_AS), extras)
        if reads_as(candidate[key], block) and _taken(candidate[key], ai_sdk):
            return candidate
    return overlay(render(conversion, ai_sdk), extras, ours=(key,))


def _taken(output: object, ai_sdk: AiSdk) -> bool:
    """Whether the ``ai`` version takes ``output``: AI SDK 5 has no ``execution-denied``, and no item
    but text and media (those read from 6's or 7's payloads are spelled anew for it)."""
    if ai_sdk != 5 or not isinstance(output, Mapping):
        return True
    if output.get("type") != "content":
        return output.get("type") in _AI_5_OUTPUTS
    value = output.get("value")
    return isinstance(value, list) and all(
        isinstance(entry, Mapping) and entry.get("type") in _AI_5_ITEMS for entry in value
    )


def _output_reads_as(value: object, block: ToolResultBlock) -> bool:
    try:
        blocks, state, _, _ = _read_output(value, "")
    except DecodeError:
        return False
    if state is ToolResultState.DENIED:  # execution-denied says more than an error: only a denial reads so
        return same_blocks(blocks, block.output) and block.state is ToolResultState.DENIED
    return same_blocks(blocks, block.output) and (state is ToolResultState.ERROR) == (block.state in ERROR_STATES)


def _codebuff_reads_as(value: object, block: ToolResultBlock) -> bool:
    try:
        blocks, _, _ = _read_items(value, "")
    except DecodeError:
        return False
    return same_blocks(blocks, block.output)


def _write_output(
    conversion: Conversion,
    message_index: int,
    block_index: int,
    block: ToolResultBlock,
    marks: _Marks,
    ai_sdk: AiSdk,
    *,
    denial: bool = False,
) -> dict[str, Any]:
    """``marks``: what the result carries of its output list.  ``denial``: the result was read as AI
    SDK 6's ``execution-denied``, written so while it is one (as an error for AI SDK 5, which has none)."""
    texts = [inner.text for inner in block.output if isinstance(inner, TextBlock)]
    if denial and ai_sdk != 5 and block.state is ToolResultState.DENIED and len(texts) == len(block.output) <= 1:
        return {"type": _DENIED, **({"reason": texts[0]} if texts else {})}
    is_error = block.state in ERROR_STATES
    if len(block.output) == 1 and texts and (is_error or not marks.kept):
        return {"type": "error-text" if is_error else "text", "value": texts[0]}
    if is_error:
        # Only a text output says error: the blocks' text, each medium through the policy.
        parts = [
            inner.text
            if isinstance(inner, TextBlock)
            else conversion.refuse(message_index, block_index, inner, inner_index, ERROR_RESULT)
            for inner_index, inner in enumerate(block.output)
        ]
        return {"type": "error-text", "value": "\n".join(part for part in parts if part is not None)}
    items = _output_items(conversion, message_index, block_index, block, marks, ai_sdk)
    if ai_sdk == 5:
        _refuse_kept_for_ai_5(conversion, message_index, block_index, marks.kept)
        return {"type": "content", "value": items}
    return {"type": "content", "value": _with_kept(items, marks.kept)}


def _refuse_kept_for_ai_5(
    conversion: Conversion, message_index: int, block_index: int, kept: Mapping[int, dict[str, Any]]
) -> None:
    """Apply the policy to the items carried whole, which AI SDK 5 has none of: raise, or drop each
    with a note; for ``"text"`` too, as a text of a file only a provider holds shows the model nothing."""
    for index, entry in sorted(kept.items()):
        kind = str(entry.get("type"))
        if conversion.policy == "raise":
            raise UnsupportedContentError(
                f"{TARGET} 5 cannot hold a {kind} item (messages[{message_index}].content[{block_index}]"
                f".output[{index}]): ai 5 takes only text and media items in a tool result and refuses the whole "
                "prompt; pass on_unsupported='drop' or 'text' to leave it out, or ai_sdk=6 or 7"
            )
        conversion.notes.append(ConversionNote(message_index, block_index, kind, "dropped", f"{TARGET} 5", index))


def _codebuff_result(
    conversion: Conversion, message_index: int, block_index: int, block: ToolResultBlock, marks: _Marks
) -> dict[str, Any]:
    items = _output_items(conversion, message_index, block_index, block, marks, None)
    return {"toolCallId": block.id or "", "toolName": block.name or "", "content": _with_kept(items, marks.kept)}


def _output_items(
    conversion: Conversion,
    message_index: int,
    block_index: int,
    block: ToolResultBlock,
    marks: _Marks,
    ai_sdk: AiSdk | None,
) -> list[dict[str, Any]]:
    """A result's output as text (Codebuff, ``ai_sdk`` ``None``: json) and media items.  A medium must
    name its type: one that declares none goes with the type its URL or its data's first bytes
    suggest, else through the policy, as does one the version's items cannot hold."""
    items: list[dict[str, Any]] = []
    for inner_index, inner in enumerate(block.output):
        written = marks.item(inner_index, inner, ai_sdk)
        if written is not None:
            items.append(written)
            continue
        # a medium no item holds (a URL for AI SDK 5, of no type we can tell), a thought, a nested result
        text = conversion.refuse(message_index, block_index, inner, inner_index)
        if text is not None:
            items.append({"type": "json", "value": text} if ai_sdk is None else {"type": "text", "text": text})
    return items


def _our_item(inner: ContentBlock, ai_sdk: AiSdk | None) -> dict[str, Any] | None:
    """The item we write for ``inner`` for ``ai_sdk`` (``None``: Codebuff's list, text as json)."""
    if isinstance(inner, TextBlock):
        return {"type": "json", "value": inner.text} if ai_sdk is None else {"type": "text", "text": inner.text}
    return medium_item(inner, ai_sdk)


def _kept(value: object) -> dict[int, dict[str, Any]]:
    """The items carried whole under :data:`BLOCKS`, by index: only those that read as such an item
    (anything else in the metadata is not what was read)."""
    kept: dict[int, dict[str, Any]] = {}
    for key, entry in value.items() if isinstance(value, Mapping) else ():
        index = position(key)
        if index is not None:
            plain = thawed(entry)
            try:
                if read_output_item(plain, "") is None:
                    kept[index] = plain
            except DecodeError:
                pass
    return kept


def _with_kept(items: list[dict[str, Any]], kept: Mapping[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """``items`` with the ``kept`` ones back at their indexes; those past its end after it, in order."""
    pending = dict(kept)
    out: list[dict[str, Any]] = []
    for entry in items:
        while len(out) in pending:
            out.append(pending.pop(len(out)))
        out.append(entry)
    return out + [pending[index] for index in sorted(pending)]


def write_codebuff_result(
    conversion: Conversion, message_index: int, block_index: int, block: ToolResultBlock, extras: Mapping[str, Any]
) -> dict[str, Any]:
    """The ``toolCallId``, ``toolName`` and ``content`` of a tool message in Codebuff's shape."""
    marks = _Marks(extras)

    def render(using: Conversion, _version: AiSdk) -> dict[str, Any]:  # Codebuff's items are the same for all
        return _codebuff_result(using, message_index, block_index, block, marks)

    fields = {key: value for key, value in extras.items() if key not in _BOOKKEEPING}
    return _agreeing(render, conversion, fields, block, _codebuff_reads_as, "content", _READ_AS)


def render_codebuff_result(block: ContentBlock, extras: Mapping[str, Any]) -> dict[str, Any]:
    assert isinstance(block, ToolResultBlock)
    fields = {key: value for key, value in extras.items() if key not in _BOOKKEEPING}
    return overlay(_codebuff_result(Conversion(TARGET, "drop"), 0, 0, block, _Marks(extras)), fields)
