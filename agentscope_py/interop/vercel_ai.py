"""Vercel AI SDK ``ModelMessage`` lists, also Codebuff's message history.

``system`` / ``user`` / ``assistant`` / ``tool`` messages whose content is a
string or a list of parts: text, image and file (with AI SDK 7's tagged data:
``_vercel_media``), reasoning (with Anthropic's
signature: ``_vercel_reasoning``), tool-call and tool-result (with
``text``/``json``/``error-*``/``content`` outputs: ``_vercel_results``), and AI
SDK 6's tool approvals (``_vercel_approvals``).  Codebuff
writes a tool message as ``{"role": "tool", "toolCallId", "toolName",
"content": [json | media outputs]}``; both shapes are read and written back as
they came.  Tool results inside an AgentScope assistant message go out as the
``tool`` message Vercel wants and come back as a TOOL message.  See
``docs/interop/vercel_ai.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._blocks import ContentBlock, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from .._enums import MsgRole
from .._frozen import thawed
from .._messages import Msg
from .._reader import (
    at,
    opt_dict,
    opt_int,
    opt_number,
    opt_str,
    req,
    req_dict,
    req_str,
)
from .._usage import ChatUsage
from ._call_arguments import parse_arguments, tool_arguments
from ._carried_fields import (
    APPROVALS,
    CONTENT_FORM,
    LAYOUT,
    PART_OF,
    PARTS,
    RAN_BY_PROVIDER,
    carried,
    carry_in_block,
    diff,
    overlay,
    part_extras,
    with_carried,
)
from ._common import ERROR_STATES, Conversion, Converted, OnUnsupported, as_message_list, file_id_hint, media_type_hint
from ._frameworks import (
    MEDIA_BLOCKS,
    PartReader,
    PartRenderer,
    Run,
    make_message,
    own_run,
    read_all,
    read_epoch,
    read_part,
    read_parts,
    read_role,
    result_runs,
    written_epoch,
)
from ._media_types import fetchable
from ._payloads import read_usage
from ._vercel_approvals import ApprovalParts, Unheld, read_approvals, refused_by_ai_5
from ._vercel_media import AiSdk, check_ai_sdk, read_media, write_media
from ._vercel_reasoning import read_reasoning, reasoning_part
from ._vercel_results import (
    TARGET,
    read_codebuff_result,
    read_result_part,
    render_codebuff_result,
    write_codebuff_result,
    write_result_part,
)

__all__ = ["from_vercel_ai", "to_vercel_ai"]

_FMT = "vercel_ai"
#: The key in a message's ``providerOptions`` that holds the AgentScope fields Vercel has no place for.
_OURS = "agentscope"
_CODEBUFF = "codebuff"
#: Epoch milliseconds at which Codebuff added the message to its history.
_SENT_AT = "sentAt"

_ROLES = {"system": MsgRole.SYSTEM, "user": MsgRole.USER, "assistant": MsgRole.ASSISTANT, "tool": MsgRole.TOOL}
_ROLE_NAMES = {role: name for name, role in _ROLES.items()}
_USUAL_FORM = {MsgRole.SYSTEM: "string", MsgRole.USER: "list", MsgRole.ASSISTANT: "list", MsgRole.TOOL: "list"}


# == reading =========================================================================


def from_vercel_ai(payload: Any) -> list[Msg]:
    """Messages from a list of ``ModelMessage`` dicts (or Codebuff's message history).

    Each message gets a fresh ``id``; ``timestamp`` comes from Codebuff's
    ``sentAt`` (``None`` without it).  Raises
    :class:`~agentscope_py.errors.DecodeError` naming the path of anything malformed.
    """
    return read_all(payload, _read_message)


def _read_message(value: object, path: str) -> Msg[Any]:
    raw = req_dict(value, path)
    role = read_role(raw, path, _ROLES)
    content = req(raw, "content", path)
    content_path = at(path, "content")
    bookkeeping: dict[str, Any] = {}
    parts: dict[str, Any] = {}
    blocks: list[ContentBlock]
    layout_keys: tuple[str, ...]
    if role is MsgRole.TOOL and "toolCallId" in raw:
        layout_keys = ("toolCallId", "toolName", "content")
        layout = {key: raw[key] for key in layout_keys if key in raw}
        block, extras = read_part(read_codebuff_result, render_codebuff_result, layout, path)
        blocks = [carry_in_block(block, _FMT, extras) or block]
        bookkeeping[LAYOUT] = _CODEBUFF
    else:
        layout_keys = ("content",)
        if isinstance(content, str) and role is not MsgRole.TOOL:
            blocks, form = [TextBlock(content)], "string"
        else:
            readers = _READERS_BY_ROLE[role]
            blocks, parts, part_of, whole = read_parts(
                _FMT, role, content, content_path, readers, _renderer(role), keep_unknown=True
            )
            if whole:  # AI SDK 6's approval parts: no blocks, carried (anything else is refused)
                approvals = read_approvals(role, blocks, whole, content_path, list(readers))
                if approvals:
                    bookkeeping[APPROVALS] = approvals
            form = "list"
        if form != _USUAL_FORM[role]:
            bookkeeping[CONTENT_FORM] = form
    options_path = at(path, "providerOptions")
    options = opt_dict(raw.get("providerOptions"), options_path) or {}
    name, metadata, usage = _read_ours(options.get(_OURS), at(options_path, _OURS))
    plain = make_message(
        role, blocks, name=name, metadata=metadata, timestamp=read_epoch(raw, _SENT_AT, path, "ms"), usage=usage
    )
    fields = {k: v for k, v in raw.items() if k not in layout_keys}
    extras = {**diff(_write_fields(plain, 0, {}, own=True), fields), **bookkeeping}
    if parts:
        extras[PARTS], extras[PART_OF] = parts, part_of
    return plain.with_metadata(with_carried(plain.metadata, _FMT, extras))


def _read_ours(value: object, path: str) -> tuple[str | None, dict[str, Any], ChatUsage | None]:
    """Name, metadata and usage from ``providerOptions.agentscope``, where :func:`to_vercel_ai` puts them."""
    if not isinstance(value, dict):
        return None, {}, None
    name = opt_str(value.get("name"), at(path, "name"))
    metadata = opt_dict(value.get("metadata"), at(path, "metadata")) or {}
    usage_value = opt_dict(value.get("usage"), at(path, "usage"))
    usage = None
    if usage_value is not None:
        usage_path = at(path, "usage")

        def count(key: str) -> int:
            return opt_int(usage_value.get(key), at(usage_path, key)) or 0

        seconds = opt_number(usage_value.get("time"), at(usage_path, "time")) or 0.0
        usage = read_usage(usage_path, count("input_tokens"), count("output_tokens"), count("cached_tokens"), seconds)
    return name, {k: v for k, v in metadata.items() if k != _FMT}, usage


def _read_text(part: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    return TextBlock(req_str(req(part, "text", path), at(path, "text"))), {}


def _read_image(part: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    return read_media(part, path, "image")


def _read_file(part: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    return read_media(part, path, "file")


def _read_tool_call(part: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    call_id = req_str(req(part, "toolCallId", path), at(path, "toolCallId"))
    name = req_str(req(part, "toolName", path), at(path, "toolName"))
    # The SDK's schema makes input optional (an undefined one is not in the JSON): no arguments.
    value = part.get("input")
    if isinstance(value, str):  # arguments as raw JSON text: kept exactly, their object parsed
        return ToolUseBlock(call_id, name, parse_arguments(value), value), {}
    # Any other non-object input (null, a list) is carried as it came; input stays empty.
    return ToolUseBlock(call_id, name, value if isinstance(value, dict) else {}), {}


_USER_READERS: dict[str, PartReader] = {"text": _read_text, "image": _read_image, "file": _read_file}


def _read_assistant_result(part: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    # A result in an assistant message is one the provider ran; AI SDK 6 no longer marks it so.
    block, hints = read_result_part(part, path)
    return block, {**hints, RAN_BY_PROVIDER: True}


def _read_assistant_file(part: dict[str, Any], path: str) -> tuple[ContentBlock, dict[str, Any]]:
    # In an assistant message media is written as a file part whatever its type: no type hint needed.
    block, hints = read_media(part, path, "file")
    return block, {key: value for key, value in hints.items() if key != "type"}


_ASSISTANT_READERS: dict[str, PartReader] = {
    **_USER_READERS,
    "file": _read_assistant_file,
    "reasoning": read_reasoning,
    "tool-call": _read_tool_call,
    "tool-result": _read_assistant_result,  # a provider-executed tool's result
}
_READERS_BY_ROLE: dict[MsgRole, dict[str, PartReader]] = {
    MsgRole.SYSTEM: {"text": _read_text},
    MsgRole.USER: _USER_READERS,
    MsgRole.ASSISTANT: _ASSISTANT_READERS,
    MsgRole.TOOL: {"tool-result": read_result_part},
}


def _renderer(role: MsgRole) -> PartRenderer:
    kind = _ROLE_NAMES[role]

    def render(block: ContentBlock, extras: Mapping[str, Any]) -> dict[str, Any]:
        # Every block a reader makes can be written, so this conversion never applies its policy.
        # A block with metadata is rendered carrying its reader's hints, as it will once read.
        carrier = carry_in_block(block, _FMT, extras) or block
        return _write_part(Conversion(TARGET, "drop"), 0, 0, carrier, extras, kind) or {}

    return render


# == writing =========================================================================


def to_vercel_ai(
    messages: Iterable[Msg], *, on_unsupported: OnUnsupported = "raise", ai_sdk: AiSdk = 6
) -> Converted:
    """``ModelMessage`` dicts for ``messages``.

    Tool results go to ``tool`` messages (one per run of results; an assistant
    message holding results is split around them), other blocks of a TOOL
    message to a ``user`` message.  A block Vercel cannot hold (a
    :class:`~agentscope_py.HintBlock`, media whose type cannot be told, media
    given by URL inside a tool result for AI SDK 5, reasoning outside an assistant message) raises
    :class:`~agentscope_py.errors.UnsupportedContentError`, unless
    ``on_unsupported`` is ``"drop"`` or ``"text"``; ``.notes`` records each such choice.
    So does, for AI SDK 5, an approval part or an output item carried whole (``file-id`` …),
    which it has none of (either policy drops them).

    ``ai_sdk`` (5, 6 or 7): the major version of the ``ai`` package that will read the messages.
    It picks how media in a tool result are spelled, which no spelling does for all three; what was
    read from a payload in another spelling than ours goes back as it came while its block is unchanged,
    but for AI SDK 5, which takes none of 6's and 7's: for it, that is spelled anew.
    """
    version = check_ai_sdk(ai_sdk)
    conversion = Conversion(TARGET, on_unsupported)
    out: list[dict[str, Any]] = []
    for index, message in enumerate(as_message_list(messages)):
        out.extend(_write_message(conversion, index, message, version))
    return Converted(out, conversion.notes)


def _write_message(conversion: Conversion, message_index: int, message: Msg[Any], ai_sdk: AiSdk) -> list[dict[str, Any]]:
    assert message.role is not None
    extras = carried(message.metadata, _FMT)
    runs = result_runs(message, _provider_executed(message))
    # The message's own fields (and its parts' carried fields) go with its first run of its own kind.
    own_index = own_run(message, runs)
    out = []
    for run_index, (is_result, run) in enumerate(runs):
        own = run_index == own_index
        run_extras = extras if own else {}
        if is_result:
            role = MsgRole.TOOL
            fields = _write_fields(message, message_index, run_extras, own=own, role=role)
            body = _write_results(conversion, message_index, run, run_extras, ai_sdk)
        else:
            role = MsgRole.USER if message.role is MsgRole.TOOL else message.role
            fields = _write_fields(message, message_index, run_extras, own=own, role=role)
            body = {"content": _write_content(conversion, message_index, run, run_extras, role, ai_sdk)}
        out.append({**fields, **body})
    return out


def _provider_executed(message: Msg[Any]) -> frozenset[str | None]:
    """Ids of calls the provider ran itself: their results stay in the assistant message, as Vercel has
    them.  The call says so, or the result itself (read from a message that held it without its call)."""
    if message.role is not MsgRole.ASSISTANT:
        return frozenset()
    return frozenset(
        block.id
        for block in message.content
        if isinstance(block, (ToolUseBlock, ToolResultBlock)) and _ran_by_provider(carried(block.metadata, _FMT))
    )


def _ran_by_provider(fields: Mapping[str, Any]) -> bool:
    return fields.get("providerExecuted") is True or fields.get(RAN_BY_PROVIDER) is True


def _write_fields(
    message: Msg[Any],
    message_index: int,
    extras: Mapping[str, Any],
    *,
    own: bool,
    role: MsgRole | None = None,
) -> dict[str, Any]:
    """Every field of the message but its content; the AgentScope-only ones only in its ``own`` run."""
    assert message.role is not None
    out: dict[str, Any] = {"role": _ROLE_NAMES[role or message.role]}
    if own:
        ours: dict[str, Any] = {}
        if message.name is not None:
            ours["name"] = message.name
        metadata = {k: v for k, v in message.metadata.items() if k != _FMT}
        if metadata:
            ours["metadata"] = thawed(metadata)
        if message.usage is not None:
            usage = message.usage
            ours["usage"] = {
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "cached_tokens": usage.cached_tokens,
                "time": usage.time,
            }
        if ours:
            out["providerOptions"] = {_OURS: ours}
        sent_at = written_epoch(message.timestamp, extras.get(_SENT_AT), message_index, "ms")
        if sent_at is not None:
            out[_SENT_AT] = sent_at
    fields = {k: v for k, v in extras.items() if k not in (PARTS, PART_OF, CONTENT_FORM, LAYOUT, APPROVALS)}
    return overlay(out, fields)


def _write_content(
    conversion: Conversion, message_index: int, run: Run, extras: Mapping[str, Any], role: MsgRole, ai_sdk: AiSdk
) -> str | list[dict[str, Any]]:
    form = extras.get(CONTENT_FORM, _USUAL_FORM[role])
    texts = [block.text for _, block in run if isinstance(block, TextBlock)]
    if form == "string" and len(texts) == len(run) and (role is MsgRole.SYSTEM or len(texts) == 1):
        return "\n".join(texts)
    parts: list[dict[str, Any]] = []
    approvals = ApprovalParts(extras.get(APPROVALS), role, run, _unheld(conversion, message_index, ai_sdk))
    for block_index, block in run:
        approvals.place(parts, block_index)
        extras_of_part = part_extras(extras, approvals.position(parts), block)
        part = _write_part(conversion, message_index, block_index, block, extras_of_part, _ROLE_NAMES[role], ai_sdk)
        if part is not None:
            parts.append(part)
            approvals.after(parts, block, block_index)
    approvals.finish(parts, _end(run))
    return parts


def _unheld(conversion: Conversion, message_index: int, ai_sdk: AiSdk) -> Unheld | None:
    """How approval parts go for ``ai_sdk``: written (``None``), or for AI SDK 5, which has none and
    refuses the whole prompt for one, through the policy."""
    return refused_by_ai_5(conversion, message_index) if ai_sdk == 5 else None


def _end(run: Run) -> int:
    """The index of the block after ``run``: where a part past its end stands."""
    return run[-1][0] + 1 if run else 0


def _write_part(
    conversion: Conversion,
    message_index: int,
    block_index: int,
    block: ContentBlock,
    extras: Mapping[str, Any],
    kind: str,
    ai_sdk: AiSdk = 6,
) -> dict[str, Any] | None:
    """The part for ``block`` in a message of role ``kind``, or its stand-in (or ``None``) when
    that message cannot hold it.  ``extras``: the carried fields of a block without metadata."""
    if isinstance(block, TextBlock):
        return overlay({"type": "text", "text": block.text}, extras)
    if isinstance(block, MEDIA_BLOCKS) and block.source is not None and kind != "system" and fetchable(block.source):
        part = write_media(block, block.source, extras, file_only=kind == "assistant")
        if part is not None:
            return part
    if kind == "assistant":
        if isinstance(block, ThinkingBlock):
            return reasoning_part(block, carried(block.metadata, _FMT))
        if isinstance(block, ToolUseBlock):
            # Vercel's input may be any JSON: raw text that holds no object goes as the string it is.
            args = tool_arguments(block)
            rendered = {
                "type": "tool-call",
                # Vercel requires both as strings: a call without them goes with "".
                "toolCallId": block.id or "",
                "toolName": block.name or "",
                "input": block.content if args is None else args,
            }
            return overlay(rendered, carried(block.metadata, _FMT))
    if isinstance(block, ToolResultBlock) and kind in ("assistant", "tool"):
        return write_result_part(conversion, message_index, block_index, block, carried(block.metadata, _FMT), ai_sdk)
    text = conversion.refuse(message_index, block_index, block, hint=file_id_hint(block) + media_type_hint(block))
    return None if text is None else {"type": "text", "text": text}


def _write_results(
    conversion: Conversion, message_index: int, run: Run, extras: Mapping[str, Any], ai_sdk: AiSdk
) -> dict[str, Any]:
    """The body of a tool message: Codebuff's shape when it came that way and can say what the result
    holds (it has no error), else tool-result parts."""
    if extras.get(LAYOUT) == _CODEBUFF and len(run) == 1:
        block_index, block = run[0]
        assert isinstance(block, ToolResultBlock)
        if block.state not in ERROR_STATES:
            return write_codebuff_result(conversion, message_index, block_index, block, carried(block.metadata, _FMT))
    parts: list[dict[str, Any]] = []
    # the user's answers, beside the results
    approvals = ApprovalParts(extras.get(APPROVALS), MsgRole.TOOL, (), _unheld(conversion, message_index, ai_sdk))
    for block_index, block in run:
        assert isinstance(block, ToolResultBlock)
        approvals.place(parts, block_index)
        # A result read in Codebuff's shape carries its output list as a replaced "content", which goes
        # back only where we write a "content" (its layout), never into a part; a part's own "content"
        # (no field of the SDK's, kept verbatim) is carried plain and goes back into the part.
        parts.append(
            write_result_part(conversion, message_index, block_index, block, carried(block.metadata, _FMT), ai_sdk)
        )
    approvals.finish(parts, _end(run))
    return {"content": parts}


