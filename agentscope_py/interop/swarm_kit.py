"""agent-swarm-kit ``ISwarmMessage`` lists (called ``IModelMessage`` before 1.1.168): the history
a swarm agent keeps.

A message is flat: ``role``, ``agentName``, a ``content`` string, ``mode``,
``tool_calls`` (``{id, type: "function", function: {name, arguments}}``),
``tool_call_id``, ``images`` and a free ``payload``.  swarm-kit's images may be
``Blob``s, ``Uint8Array``s or strings; only base64 strings have a JSON form, so
only those are read and written.  Each tool result is a ``tool`` message of its
own; consecutive ones come back as one TOOL message.  ``agentName`` is the agent
whose history holds the message: an assistant message's ``name``, carried for the
others.  The other fields we have no place for are carried under
``metadata["swarm_kit"]``; where a system message goes among tool calls and their
results is ``_swarm_kit_placement``'s.  See ``docs/interop/swarm_kit.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._blocks import (
    ContentBlock,
    DataBlock,
    ImageBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from .._checks import check_bool, check_optional_str
from .._enums import MsgRole, ToolResultState
from .._messages import Msg
from .._reader import as_plain, at, item, json_kind, opt_list, req, req_dict, req_str
from .._shown import elided
from .._sources import Base64Source, Source, URLSource
from ..errors import DecodeError
from ._call_arguments import arguments_text, parse_arguments, tool_arguments
from ._carried_fields import (
    ABSENT,
    ARGUMENTS_AS_TEXT,
    LAYOUT,
    REPLACED,
    carried,
    carry_in_block,
    diff,
    overlay,
    with_carried,
)
from ._common import (
    NOT_AN_OBJECT,
    Conversion,
    Converted,
    OnUnsupported,
    as_message_list,
    file_id_hint,
    in_message,
    media_type_hint,
)
from ._frameworks import (
    MEDIA_BLOCKS,
    Run,
    check_block_for_role,
    make_message,
    name_results,
    own_run,
    payload_list,
    result_runs,
    sniff_image_type,
    source_from_string,
)
from ._media_types import media_type_essence, unusable_media_type
from ._payloads import nesting_guard, storing
from ._swarm_kit_placement import HeldSystemMessages, Placement, placement

__all__ = ["from_swarm_kit", "to_swarm_kit"]

_FMT = "swarm_kit"
_TARGET = "agent-swarm-kit"
# "resque" (error recovery) and "flush" (history reset) are swarm-kit's own markers, and
# "developer" its instructions from the application: read as SYSTEM messages, their role is
# carried and written back.  swarm-kit shows its agent nothing from before the last marker.
_RESETS = ("resque", "flush")
_ROLES = {
    "user": MsgRole.USER,
    "assistant": MsgRole.ASSISTANT,
    "system": MsgRole.SYSTEM,
    "tool": MsgRole.TOOL,
    "resque": MsgRole.SYSTEM,
    "flush": MsgRole.SYSTEM,
    "developer": MsgRole.SYSTEM,
}
_AGENT_NAME = "agentName"
_ROLE_NAMES = {MsgRole.USER: "user", MsgRole.ASSISTANT: "assistant", MsgRole.SYSTEM: "system", MsgRole.TOOL: "tool"}


# == reading =========================================================================


def from_swarm_kit(payload: Any, *, since_reset: bool = False) -> list[Msg]:
    """Messages from a list of ``ISwarmMessage`` (before 1.1.168 ``IModelMessage``) dicts.

    Consecutive ``tool`` messages become one TOOL message (a result block each,
    named after the call it answers when that call is in the list).  Each
    message gets a fresh ``id`` and no ``timestamp`` (swarm-kit keeps neither).
    ``agentName`` is the name of the agent whose history it is: an assistant
    message's ``name``; carried for the others, which it did not write.  A
    ``system`` message between an assistant's tool calls and the tool messages
    answering them (a tool's ``commitSystemMessage``) comes after those: swarm-kit
    sends its model every system message first anyway.

    A ``resque`` or ``flush`` message is swarm-kit's mark that its agent forgets
    everything before it.  By default every message is read, the markers too (as
    SYSTEM messages: a ``resque`` one's text, such as ``"_resurrectModel call"``,
    would be a system instruction in another format).  With ``since_reset`` only
    the messages after the last marker are returned: the history the agent still
    sees.  The whole list is read either way: anything malformed raises, and a
    result is named after its call also when that call came before the marker.

    Raises :class:`~agentscope_py.errors.DecodeError` naming the path of
    anything malformed (``messages[2].tool_calls[0].function.arguments``).
    """
    since_reset = check_bool(since_reset, "from_swarm_kit since_reset")
    out: list[Msg[Any]] = []
    start = 0  # where the messages after the last reset marker begin in out
    # The run of tool messages being read: the path of its first and its results.  The TOOL message
    # is made once the run ends: remade per result, a long run would cost quadratic time.
    run: tuple[str, list[ContentBlock]] | None = None
    held = HeldSystemMessages()
    with nesting_guard():
        for index, value in enumerate(payload_list(payload)):
            path = item("messages", index)
            raw = req_dict(value, path)
            role_name = req_str(req(raw, "role", path), at(path, "role"))
            role = _ROLES.get(role_name)
            if role is None:
                raise DecodeError(f"unknown role {elided(role_name)}; expected one of {', '.join(_ROLES)}", at(path, "role"))
            _check_one_of(raw, "mode", ("tool", "user"), path)
            with storing(path):
                if role is MsgRole.TOOL:
                    run = run or (path, [])
                    run[1].append(_read_result(raw, path))
                    continue
                message = _read_message(raw, path, role)
            if role_name == "system" and held.take(message, len(run[1]) if run else 0):
                continue
            out.extend(_end_run(run, held))
            run = None
            out.append(message)
            held.after(message)
            if role_name in _RESETS:
                start = len(out)
        out.extend(_end_run(run, held))
    named = name_results(out)
    return named[start:] if since_reset else named


def _end_run(run: tuple[str, list[ContentBlock]] | None, held: HeldSystemMessages) -> list[Msg[Any]]:
    """The TOOL message of the run of tool messages that ended, and the system messages held over it."""
    if run is None:
        return held.release([])
    with storing(run[0]):
        tool = make_message(MsgRole.TOOL, run[1])
    return [tool, *held.release(run[1])]


def _agent_name(raw: Mapping[str, Any], path: str) -> str | None:
    # An empty agentName is what we write for a message with no name.
    return req_str(req(raw, "agentName", path), at(path, "agentName")) or None


def _check_one_of(raw: Mapping[str, Any], key: str, allowed: tuple[str, ...], path: str) -> None:
    """Refuse a value of ``key`` that swarm-kit's types do not allow (its ``ExecutionMode``, a call's
    ``type``); missing, it is carried as missing."""
    if key in raw and as_plain(raw[key]) not in allowed:
        expected = " or ".join(map(repr, allowed))
        value = as_plain(raw[key])
        got = elided(value) if type(value) is str else json_kind(value)
        raise DecodeError(f"expected {expected}, got {got}", at(path, key))


def _owner(role: MsgRole, agent_name: str | None) -> dict[str, Any]:
    """The carried ``agentName`` of a message other than an assistant's: swarm-kit writes there the
    agent whose history holds the message (not who wrote it: a user, a tool), so it is no ``name``."""
    return {_AGENT_NAME: agent_name} if role is not MsgRole.ASSISTANT and agent_name else {}


def _read_body(raw: Mapping[str, Any], path: str) -> tuple[str, list[ContentBlock]]:
    """The content text and the images, as blocks."""
    content = req_str(req(raw, "content", path), at(path, "content"))
    images_path = at(path, "images")
    images = opt_list(raw.get("images"), images_path) or []
    blocks: list[ContentBlock] = []
    for index, value in enumerate(images):
        image_path = item(images_path, index)
        value = as_plain(value)
        if type(value) is not str:
            raise DecodeError(
                f"expected an image as a base64 string, got {json_kind(value)}: a Blob or Uint8Array image has"
                " no JSON form; write each image as its bytes in base64 before serializing the history",
                image_path,
            )
        source = source_from_string(value, None)
        if not isinstance(source, Base64Source):
            raise DecodeError("expected base64 image data, got a URL", image_path)
        if not source.media_type:
            source = Base64Source(sniff_image_type(source.data), source.data)
        elif not media_type_essence(source.media_type).startswith("image/"):
            raise DecodeError(f"expected an image, got a data URL of {source.media_type}", image_path)
        blocks.append(DataBlock(source))
    return content, blocks


def _read_message(raw: dict[str, Any], path: str, role: MsgRole) -> Msg[Any]:
    agent_name = _agent_name(raw, path)
    content, images = _read_body(raw, path)
    calls_path = at(path, "tool_calls")
    calls = [_read_call(value, item(calls_path, index)) for index, value in enumerate(opt_list(raw.get("tool_calls"), calls_path) or [])]
    text = [] if content == "" and (images or calls) else [TextBlock(content)]
    blocks: list[ContentBlock] = [*text, *images, *calls]
    for block in images:
        check_block_for_role(role, block, "images", at(path, "images"))
    if calls:
        check_block_for_role(role, calls[0], "tool_calls", calls_path)
    plain = make_message(role, blocks, name=agent_name if role is MsgRole.ASSISTANT else None)
    owner = _owner(role, agent_name)
    written = _write_message_run(Conversion(_TARGET, "drop"), 0, plain, plain.name, list(enumerate(plain.content)), owner)
    fields = dict(raw)
    if calls:  # each call carries its own fields
        del written["tool_calls"], fields["tool_calls"]
    return plain.with_metadata(with_carried(plain.metadata, _FMT, {**diff(written, fields), **owner}))


def _read_call(value: object, path: str) -> ToolUseBlock:
    call = req_dict(value, path)
    _check_one_of(call, "type", ("function",), path)
    function_path = at(path, "function")
    function = req_dict(req(call, "function", path), function_path)
    call_id = req_str(req(call, "id", path), at(path, "id"))
    name = req_str(req(function, "name", function_path), at(function_path, "name"))
    arguments = as_plain(req(function, "arguments", function_path))
    hints: dict[str, Any] = {}
    if type(arguments) is str:  # raw JSON text, as a model streamed it: kept exactly, and written so
        block = ToolUseBlock(call_id, name, parse_arguments(arguments), arguments)
        hints[ARGUMENTS_AS_TEXT] = True
    elif type(arguments) is dict:
        block = ToolUseBlock(call_id, name, arguments)
    else:
        raise DecodeError("expected an object or a JSON string", at(function_path, "arguments"))
    written = _write_call(carry_in_block(block, _FMT, hints) or block)
    assert written is not None  # text is written as it came
    return carry_in_block(block, _FMT, {**diff(written, call), **hints}) or block


def _read_result(raw: dict[str, Any], path: str) -> ToolResultBlock:
    content, images = _read_body(raw, path)
    call_id_path = at(path, "tool_call_id")
    call_id = raw.get("tool_call_id")
    call_id = None if call_id is None else req_str(call_id, call_id_path)
    text = [] if content == "" and images else [TextBlock(content)]
    block = ToolResultBlock(call_id, None, [*text, *images], state=ToolResultState.SUCCESS)
    # The tool message's own fields ride on its result block: several results share one message here.
    owner = _owner(MsgRole.TOOL, _agent_name(raw, path))
    written = _render_result(Conversion(_TARGET, "drop"), 0, None, 0, block, owner)
    return carry_in_block(block, _FMT, {**diff(written, raw), **owner}) or block


# == writing =========================================================================


def to_swarm_kit(
    messages: Iterable[Msg], *, on_unsupported: OnUnsupported = "raise", agent_name: str | None = None
) -> Converted:
    """``ISwarmMessage`` (before 1.1.168 ``IModelMessage``) dicts for ``messages``.

    Text blocks are joined into ``content`` (with ``"\\n"``), base64 images go to
    ``images``, each tool result to a ``tool`` message of its own (an assistant
    message holding results is split around them; other blocks of a TOOL message
    go to a ``user`` message).  A block swarm-kit cannot hold (thinking, hints,
    media other than base64 images, a tool call outside an assistant message, a
    tool result without an id) raises :class:`~agentscope_py.errors.UnsupportedContentError`,
    unless ``on_unsupported`` is ``"drop"`` or ``"text"``; ``.notes`` records each such choice.

    ``agentName`` names the agent whose history it is: an assistant message's
    ``name``; for the other messages (a user's or a tool's, whose ``name`` is no
    agent) the ``agentName`` they were read with; else ``agent_name``, else ``""``.
    swarm-kit shows an agent its ``system`` messages, tool calls and tool results
    only when their ``agentName`` is its own name: for a history of nameless
    messages, pass that name, or those never reach its model.  swarm-kit also leaves
    out messages with neither ``content`` text nor calls (an image alone), calls no
    result answers (an assistant message left with none goes whole, text and all)
    and results whose call it left out.  ``mode`` is ``"user"`` for a user message
    and ``"tool"`` for the rest, as swarm-kit writes it, unless read otherwise.
    """
    conversion = Conversion(_TARGET, on_unsupported)
    default_name = check_optional_str(agent_name, "to_swarm_kit agent_name")
    given = as_message_list(messages)
    plan = placement(given)
    moved = {index for before in plan.values() for indices in before.values() for index in indices}
    out: list[dict[str, Any]] = []
    for index in range(len(given)):
        if index not in moved:  # written before the result it was read before, with that result's message
            out.extend(_write_message(conversion, given, index, default_name, plan))
    return Converted(out, conversion.notes)


def _write_message(
    conversion: Conversion, messages: list[Msg[Any]], index: int, default_name: str | None, plan: Placement
) -> list[dict[str, Any]]:
    """The swarm-kit messages of ``messages[index]``, with the system messages ``plan`` puts among its results."""
    message = messages[index]
    # An assistant's name is the agent's; another message's is no agent's (a user's, a tool's): see _owner.
    fallback = (message.name if message.role is MsgRole.ASSISTANT else None) or default_name
    extras = carried(message.metadata, _FMT)
    runs = result_runs(message)
    own_index = own_run(message, runs)
    held = plan.get(index, {})
    out: list[dict[str, Any]] = []
    results_written = 0
    for run_index, (is_result, run) in enumerate(runs):
        if not is_result:
            run_extras = extras if run_index == own_index else {}
            out.append(_write_message_run(conversion, index, message, fallback, run, run_extras))
            continue
        for block_index, block in run:
            for system_index in held.get(results_written, ()):
                out.extend(_write_message(conversion, messages, system_index, default_name, {}))
            results_written += 1
            assert isinstance(block, ToolResultBlock)
            out.extend(_write_result(conversion, index, fallback, block_index, block))
    return out


def _agent_name_for(role: MsgRole | None, extras: Mapping[str, Any], fallback: str | None) -> str:
    """The ``agentName`` to write: the one a message other than an assistant's was read with (see
    _owner; an assistant's is its name, so an edited name is written), else ``fallback``, else ``""``."""
    kept = extras.get(_AGENT_NAME)
    if role is not MsgRole.ASSISTANT and isinstance(kept, str) and kept:
        return kept
    return fallback or ""


def _write_message_run(
    conversion: Conversion, message_index: int, message: Msg[Any], fallback: str | None, run: Run, extras: Mapping[str, Any]
) -> dict[str, Any]:
    """One message for a run of blocks other than tool results."""
    assert message.role is not None
    role = MsgRole.USER if message.role is MsgRole.TOOL else message.role
    texts: list[str] = []
    images: list[str] = []
    calls: list[dict[str, Any]] = []
    for block_index, block in run:
        call = (
            _write_call(block)
            if isinstance(block, ToolUseBlock) and role is MsgRole.ASSISTANT
            else None
        )
        if call is not None:
            calls.append(call)
        else:
            why = ""
            if isinstance(block, ToolUseBlock):  # unfit by its arguments in an assistant message, by its place in a TOOL one
                why = NOT_AN_OBJECT if role is MsgRole.ASSISTANT else in_message("tool")
            _add_to_body(conversion, message_index, block_index, block, texts, images, why=why)
    out: dict[str, Any] = {
        "role": _ROLE_NAMES[role],
        "agentName": _agent_name_for(message.role, extras, fallback),
        "content": "\n".join(texts),
        # swarm-kit writes "tool" but on what the user typed; getUserHistory counts a user message of
        # mode "user" as the user's words (so not the other blocks of a TOOL message).
        "mode": "user" if message.role is MsgRole.USER else "tool",
    }
    if calls:
        out["tool_calls"] = calls
    if images:
        out["images"] = images
    # LAYOUT is placement's (where a system message was read), no field of swarm-kit's.
    return overlay(out, {key: value for key, value in extras.items() if key != LAYOUT})


def _write_call(block: ToolUseBlock) -> dict[str, Any] | None:
    """The ``tool_calls`` entry of ``block``; ``None`` when only raw text that holds no JSON object
    says its arguments (swarm-kit hands ``arguments`` to the tool as its parameters object)."""
    fields = dict(carried(block.metadata, _FMT))
    arguments: Any
    if fields.pop(ARGUMENTS_AS_TEXT, False):
        arguments = arguments_text(block)
    else:
        arguments = tool_arguments(block)
        if arguments is None:
            return None
    # swarm-kit requires both as strings: a call without them goes with "".
    function = {"name": block.name or "", "arguments": arguments}
    rendered = {"id": block.id or "", "type": "function", "function": function}
    return overlay(rendered, fields)


def _write_result(
    conversion: Conversion, message_index: int, fallback: str | None, block_index: int, block: ToolResultBlock
) -> list[dict[str, Any]]:
    """The tool message of a result; a result without an id the policy decides on (none, or a user
    message of its text), unless it was read so: swarm-kit sends a tool message without
    ``tool_call_id`` to its model, whose API rejects it, but never writes one itself."""
    extras = carried(block.metadata, _FMT)
    if block.id is not None or _read_without_id(extras):
        return [_render_result(conversion, message_index, fallback, block_index, block, extras)]
    text = conversion.refuse(message_index, block_index, block, why=" without an id", hint=_NO_ID_HINT)
    if text is None:
        return []
    return [{"role": "user", "agentName": _agent_name_for(MsgRole.TOOL, extras, fallback), "content": text, "mode": "tool"}]


_NO_ID_HINT = (
    ": swarm-kit would send it to its model as a tool message without tool_call_id, which the API rejects;"
    " give it the id of the call it answers"
)


def _read_without_id(extras: Mapping[str, Any]) -> bool:
    """Whether a result was read from a tool message whose ``tool_call_id`` was left out or ``null``."""
    return any(isinstance(entry := extras.get(key), Mapping) and "tool_call_id" in entry for key in (ABSENT, REPLACED))


def _render_result(
    conversion: Conversion,
    message_index: int,
    fallback: str | None,
    block_index: int,
    block: ToolResultBlock,
    extras: Mapping[str, Any],
) -> dict[str, Any]:
    """The tool message of a result, with the fields it carries."""
    texts: list[str] = []
    images: list[str] = []
    for inner_index, inner in enumerate(block.output):
        _add_to_body(conversion, message_index, block_index, inner, texts, images, inner_index)
    out: dict[str, Any] = {
        "role": "tool",
        "agentName": _agent_name_for(MsgRole.TOOL, extras, fallback),
        "content": "\n".join(texts),
        "mode": "tool",
        # "" for no id: a result read so carries that tool_call_id was absent or null, and goes back so.
        "tool_call_id": "" if block.id is None else block.id,
    }
    if images:
        out["images"] = images
    return overlay(out, extras)


def _add_to_body(
    conversion: Conversion,
    message_index: int,
    block_index: int,
    block: ContentBlock,
    texts: list[str],
    images: list[str],
    output_index: int | None = None,
    why: str = "",
) -> None:
    """Put a block into a message's text or images, or apply the policy when it fits neither (``why``:
    see :meth:`Conversion.refuse`)."""
    if isinstance(block, TextBlock):
        texts.append(block.text)
        return
    source = block.source if isinstance(block, MEDIA_BLOCKS) else None
    if source is not None and _is_image(block, source):
        assert isinstance(source, Base64Source)
        images.append(source.data)
        return
    hint = file_id_hint(block) + media_type_hint(block)
    text = conversion.refuse(message_index, block_index, block, output_index, why, hint)
    if text is not None:
        texts.append(text)


def _is_image(block: ContentBlock, source: Source) -> bool:
    """Whether the block is an image swarm-kit can hold: base64 bytes (it has no URLs) of a type
    that is a media type, or of none."""
    if isinstance(source, URLSource) or unusable_media_type(source) is not None:
        return False
    assert isinstance(source, Base64Source)
    # "" is a type nobody gave: bare base64 read from swarm-kit whose format we could not tell.
    return isinstance(block, ImageBlock) or (
        isinstance(block, DataBlock)
        and (source.media_type == "" or media_type_essence(source.media_type).startswith("image/"))
    )
