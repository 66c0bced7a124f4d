"""Hypothesis strategies for the payloads of AgentFlow, the Vercel AI SDK and agent-swarm-kit.

Everything generated is a payload the format can express, in the shape its
serializers write (``role`` and ``content`` always there, AgentFlow's
``message_id``/``timestamp`` too), with optional fields present or absent at
random, and given as ``null`` or empty where a serializer may write them so
(distinctions our model cannot hold, which must come back all the same).  Also: what the converters normalize when AgentScope messages
go out and come back (:func:`comparable`), and the seed examples.
"""

from __future__ import annotations

import base64
import datetime
import json
from pathlib import Path
from typing import Any

import attrs
from hypothesis import strategies as st
from strategies import json_objects, json_text, json_values

from agentscope_py import ContentBlock, DataBlock, Msg, ToolResultBlock

__all__ = [
    "agentflow_payloads",
    "any_timestamps",
    "comparable",
    "seed",
    "swarm_kit_payloads",
    "vercel_ai_payloads",
]

DATA = Path(__file__).parent / "data" / "interop"

_TEXT = json_text(max_size=12)
_IDS = st.sampled_from(["call_1", "c2", "toolu_01"]) | st.text("abcdefghij_0123456789", min_size=1, max_size=8)
_MEDIA_TYPES = st.sampled_from(["image/png", "image/jpeg", "audio/wav", "video/mp4", "application/pdf"])
_BASE64 = st.binary(max_size=12).map(lambda raw: base64.b64encode(raw).decode())
_URLS = st.sampled_from(["https://example.com/a.png", "https://example.com/doc.pdf", "file:///tmp/x.wav"])
_MILLIS = st.integers(min_value=0, max_value=4_102_444_800_000)
_EXTRA_VALUES = json_values(max_leaves=4)


def seed(name: str) -> Any:
    """A seed example file of ``tests/data/interop``."""
    return json.loads((DATA / name).read_text(encoding="utf-8"))


@st.composite
def _with_optional(draw: st.DrawFn, required: dict[str, Any], optional: dict[str, st.SearchStrategy[Any]]) -> dict[str, Any]:
    out = dict(required)
    for key, strategy in optional.items():
        if draw(st.booleans()):
            out[key] = draw(strategy)
    return out


def _obj(required: dict[str, st.SearchStrategy[Any]], optional: dict[str, st.SearchStrategy[Any]] | None = None) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(required, optional=optional or {})


# -- AgentFlow ------------------------------------------------------------------------

_MEDIA_EXTRAS = {
    "mime_type": st.none() | _MEDIA_TYPES,
    "filename": st.none() | _TEXT,
    "size_bytes": st.none() | st.integers(0, 10**6),
    "sha256": st.none() | _TEXT,
    "width": st.none() | st.integers(0, 4000),
}
_MEDIA_REFS = st.one_of(
    _obj({"kind": st.just("url"), "url": _URLS}, _MEDIA_EXTRAS),
    _obj({"kind": st.just("file_id"), "file_id": _TEXT}, _MEDIA_EXTRAS),
    _obj({"kind": st.just("data"), "data_base64": _BASE64}, _MEDIA_EXTRAS),
)
_ANNOTATION_REFS = _obj({}, {"url": _URLS, "title": _TEXT, "page": st.integers(1, 9)})
_AF_TEXT = _obj({"type": st.just("text"), "text": _TEXT}, {"annotations": st.lists(_ANNOTATION_REFS, max_size=2)})
_AF_MEDIA = st.one_of(
    _obj({"type": st.just("image"), "media": _MEDIA_REFS}, {"alt_text": st.none() | _TEXT, "bbox": st.none() | st.lists(st.floats(0, 1), max_size=4)}),
    _obj({"type": st.just("audio"), "media": _MEDIA_REFS}, {"transcript": st.none() | _TEXT, "sample_rate": st.none() | st.integers(8000, 48000)}),
    _obj({"type": st.just("video"), "media": _MEDIA_REFS}, {"thumbnail": st.none() | _MEDIA_REFS}),
    _obj({"type": st.just("document"), "media": _MEDIA_REFS}, {"pages": st.none() | st.lists(st.integers(1, 9), max_size=3), "excerpt": st.none() | _TEXT}),
    _obj({"type": st.just("data"), "mime_type": _MEDIA_TYPES, "data_base64": _BASE64}),
    _obj({"type": st.just("data"), "mime_type": _MEDIA_TYPES, "media": _MEDIA_REFS}),
)
_AF_CARRIED = st.one_of(
    _obj({"type": st.just("annotation"), "kind": st.sampled_from(["citation", "note"]), "refs": st.lists(_ANNOTATION_REFS, max_size=2)}),
    _obj({"type": st.just("error"), "message": _TEXT}, {"code": st.none() | _TEXT, "data": json_objects()}),
)
_AF_OUTPUTS = st.one_of(_TEXT, _EXTRA_VALUES, st.lists(_AF_TEXT, max_size=2))
_AF_AGENT_BLOCKS = st.one_of(
    _obj({"type": st.sampled_from(["tool_call", "remote_tool_call"]), "id": _IDS, "name": _TEXT, "args": json_objects()}, {"tool_type": st.none() | _TEXT}),
    _obj({"type": st.just("tool_result"), "tool_call_id": _IDS, "content": _AF_OUTPUTS}, {"is_error": st.booleans(), "status": st.sampled_from(["completed", "failed"])}),
    _obj({"type": st.just("tool_result"), "call_id": _IDS, "output": _AF_OUTPUTS}, {"is_error": st.booleans(), "status": st.sampled_from(["completed", "failed"])}),
    _obj({"type": st.just("reasoning"), "thinking": _TEXT}, {"signature": st.none() | _TEXT}),
    # A payload may give both spellings: the text is read from summary.
    _obj({"type": st.just("reasoning"), "summary": _TEXT}, {"details": st.lists(_TEXT, max_size=2), "thinking": _TEXT}),
)
_AF_BLOCKS_BY_ROLE = {
    "system": st.one_of(_AF_TEXT, _AF_CARRIED),
    "user": st.one_of(_AF_TEXT, _AF_MEDIA, _AF_CARRIED),
    "assistant": st.one_of(_AF_TEXT, _AF_MEDIA, _AF_CARRIED, _AF_AGENT_BLOCKS),
    "tool": st.one_of(_AF_TEXT, _AF_MEDIA, _AF_CARRIED, _AF_AGENT_BLOCKS),
}
_USAGES = _obj(
    {name: st.integers(0, 10**6) for name in ("completion_tokens", "prompt_tokens", "total_tokens")},
    {name: st.none() | st.integers(0, 10**6) for name in ("reasoning_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "image_tokens")},
)
# metadata["agentscope"] holds our name, and the place of a part of a TOOL message split around its results:
# those marks on messages that are no such parts (or are, by chance) must come back as they came too.
_AF_OURS = st.fixed_dictionaries({}, optional={"name": _TEXT, "part": st.sampled_from([[1, 2], [2, 2], [1, 1], [3, 2]])})
_AF_METADATA = st.dictionaries(_TEXT, _EXTRA_VALUES, max_size=3) | st.fixed_dictionaries({"agentscope": _AF_OURS})


def _agentflow_message(role: str) -> st.SearchStrategy[dict[str, Any]]:
    return _obj(
        {
            "message_id": st.none() | _TEXT | st.integers(0, 10**9),
            "role": st.just(role),
            "content": st.lists(_AF_BLOCKS_BY_ROLE[role], max_size=4),
            "timestamp": st.none() | _MILLIS | st.floats(0, 4e9, allow_nan=False),
        },
        {
            # The Python server always writes metadata; the TypeScript client may leave it out.
            "metadata": st.none() | _AF_METADATA,
            "delta": st.booleans(),
            "usages": st.none() | _USAGES,
            "raw": st.none() | json_objects(),
            "tools_calls": st.none() | st.lists(json_objects(), max_size=1),
        },
    )


def agentflow_payloads() -> st.SearchStrategy[list[dict[str, Any]]]:
    return st.lists(st.one_of([_agentflow_message(role) for role in _AF_BLOCKS_BY_ROLE]), max_size=4)


# -- Vercel AI SDK / Codebuff ------------------------------------------------------------

_PROVIDER_OPTIONS = st.fixed_dictionaries({"anthropic": st.fixed_dictionaries({"cacheControl": st.just({"type": "ephemeral"})})})
_PART_EXTRAS = {"providerOptions": _PROVIDER_OPTIONS}
_MEDIA_STRINGS = st.one_of(
    st.builds(lambda t, d: f"data:{t};base64,{d}", _MEDIA_TYPES, _BASE64), _URLS, _BASE64.filter(bool)
)
_V_TEXT = _obj({"type": st.just("text"), "text": _TEXT}, _PART_EXTRAS)
_V_IMAGE = _obj({"type": st.just("image"), "image": _MEDIA_STRINGS}, {"mediaType": _MEDIA_TYPES, **_PART_EXTRAS})
# AI SDK 7 tags a file's data: base64, or a URL (a data: URL for an attachment) as JSON writes a URL object.
_V7_FILE_DATA = st.one_of(
    _obj({"type": st.just("data"), "data": _BASE64}),
    _obj({"type": st.just("url"), "url": _MEDIA_STRINGS.filter(lambda text: ":" in text)}),
)
_V_FILE = _obj(
    {"type": st.just("file"), "data": _MEDIA_STRINGS | _V7_FILE_DATA, "mediaType": _MEDIA_TYPES}, {"filename": _TEXT, **_PART_EXTRAS}
)
_V_REASONING = _obj({"type": st.just("reasoning"), "text": _TEXT}, _PART_EXTRAS)
_V_CALL = _obj(
    # The AI SDK types input as any JSON: an object, raw text, or anything else (null, an array).
    {"type": st.just("tool-call"), "toolCallId": _IDS, "toolName": _TEXT, "input": json_objects() | _TEXT | _EXTRA_VALUES},
    {**_PART_EXTRAS, "providerExecuted": st.just(False)},
)
_V_MEDIA_ITEM = _obj({"type": st.just("media"), "data": _BASE64, "mediaType": _MEDIA_TYPES}, _PART_EXTRAS)
# AI SDK 6's output items (content-part.ts ToolResultOutput): inline data and URLs, images and files.
# Each read into a block carries only its spelling and the fields ours misses, never its data.
_V6_ITEMS = st.one_of(
    _obj({"type": st.just("image-data"), "data": _BASE64, "mediaType": _MEDIA_TYPES}, _PART_EXTRAS),
    _obj({"type": st.just("file-data"), "data": _BASE64, "mediaType": _MEDIA_TYPES}, {"filename": _TEXT, **_PART_EXTRAS}),
    _obj(
        {"type": st.sampled_from(["image-url", "file-url"]), "url": st.sampled_from(["https://example.com/a.png", "https://e.com/doc.pdf", "https://e.com/x"])},
        {"mediaType": _MEDIA_TYPES, **_PART_EXTRAS},
    ),
    # files the provider holds, and a provider's own items: no block of ours, carried whole
    _obj(
        {"type": st.sampled_from(["file-id", "image-file-id"]), "fileId": st.just("file-abc") | st.just({"openai": "file-1"})},
        _PART_EXTRAS,
    ),
    _obj({"type": st.just("custom")}, _PART_EXTRAS),
    # AI SDK 7: tagged data (a provider's reference is carried whole), and references by provider
    _obj(
        {
            "type": st.just("file"),
            "mediaType": _MEDIA_TYPES,
            "data": _V7_FILE_DATA | st.just({"type": "reference", "reference": {"openai": "file-1"}}),
        },
        {"filename": _TEXT, **_PART_EXTRAS},
    ),
    _obj({"type": st.sampled_from(["file-reference", "image-file-reference"]), "providerReference": st.just({"anthropic": "f"})}),
)
_V_OUTPUTS = st.one_of(
    _obj({"type": st.sampled_from(["text", "error-text"]), "value": _TEXT}),
    _obj({"type": st.sampled_from(["json", "error-json"]), "value": _EXTRA_VALUES}),
    _obj({"type": st.just("content"), "value": st.lists(_obj({"type": st.just("text"), "text": _TEXT}) | _V_MEDIA_ITEM | _V6_ITEMS, max_size=3)}),
    _obj({"type": st.just("execution-denied")}, {"reason": _TEXT}),
)
_V_RESULT = _obj({"type": st.just("tool-result"), "toolCallId": _IDS, "toolName": _TEXT, "output": _V_OUTPUTS}, _PART_EXTRAS)
# AI SDK 6's approvals: a request names a call of its message; an answer comes in a tool message.
_V_APPROVAL_ANSWER = _obj(
    {"type": st.just("tool-approval-response"), "approvalId": _IDS, "approved": st.booleans()},
    {"reason": _TEXT, "providerExecuted": st.booleans()},
)


@st.composite
def _v_assistant_parts(draw: st.DrawFn) -> list[dict[str, Any]]:
    """An assistant's parts, with approval requests for some of its calls, anywhere after them."""
    parts = draw(st.lists(st.one_of(_V_TEXT, _V_FILE, _V_REASONING, _V_CALL), max_size=4))
    for call in [part for part in parts if part["type"] == "tool-call"]:
        if draw(st.booleans()):
            approval_id = draw(st.just(call["toolCallId"]) | _IDS)
            request = {"type": "tool-approval-request", "approvalId": approval_id, "toolCallId": call["toolCallId"]}
            after = parts.index(call) + 1
            parts.insert(draw(st.integers(after, len(parts))), request)
    return parts
_MESSAGE_EXTRAS = {
    "providerOptions": st.none() | _PROVIDER_OPTIONS,
    "tags": st.lists(st.sampled_from(["USER_PROMPT", "SYSTEM"]), max_size=2),
    "sentAt": _MILLIS,
    "keepDuringTruncation": st.booleans(),
}


def _vercel_message(role: str, parts: st.SearchStrategy[dict[str, Any]], string_content: bool) -> st.SearchStrategy[dict[str, Any]]:
    content = st.lists(parts, max_size=4)
    if string_content:
        content = content | _TEXT  # type: ignore[operator]
    return _obj({"role": st.just(role), "content": content}, _MESSAGE_EXTRAS)


_CODEBUFF_TOOL = _obj(
    {
        "role": st.just("tool"),
        "toolCallId": _IDS,
        "toolName": _TEXT,
        "content": st.lists(
            _obj({"type": st.just("json"), "value": _EXTRA_VALUES}) | _obj({"type": st.just("text"), "text": _TEXT}) | _V_MEDIA_ITEM | _V6_ITEMS,
            max_size=3,
        ),
    },
    _MESSAGE_EXTRAS,
)


def vercel_ai_payloads() -> st.SearchStrategy[list[dict[str, Any]]]:
    messages = st.one_of(
        _vercel_message("system", _V_TEXT, True),
        _vercel_message("user", st.one_of(_V_TEXT, _V_IMAGE, _V_FILE), True),
        _vercel_message("assistant", st.one_of(_V_TEXT, _V_FILE, _V_REASONING, _V_CALL), True),
        _obj({"role": st.just("assistant"), "content": _v_assistant_parts()}, _MESSAGE_EXTRAS),
        _vercel_message("tool", _V_RESULT | _V_APPROVAL_ANSWER, False),
        _CODEBUFF_TOOL,
    )
    return st.lists(messages, max_size=4)


# -- agent-swarm-kit --------------------------------------------------------------------

_ARGUMENTS = json_objects() | st.builds(json.dumps, json_objects()) | _TEXT
_SWARM_CALL = _obj(
    {"id": _IDS, "function": _obj({"name": _TEXT, "arguments": _ARGUMENTS})}, {"type": st.just("function")}
)
_IMAGES = st.lists(
    _BASE64.map(lambda data: "iVBORw0KGgo" + data)
    | _BASE64
    | st.builds(lambda t, d: f"data:{t};base64,{d}", st.sampled_from(["image/png", "image/webp"]), _BASE64),
    max_size=2,
)
_SWARM_COMMON: dict[str, st.SearchStrategy[Any]] = {
    "agentName": _TEXT,
    "content": _TEXT,
    "mode": st.sampled_from(["user", "tool"]),
}
_SWARM_OPTIONAL = {"payload": st.none() | json_objects()}


def _swarm_message(role: str, optional: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    required = {**_SWARM_COMMON, "role": st.just(role)}
    return _obj(required, {**_SWARM_OPTIONAL, **optional})


def swarm_kit_payloads() -> st.SearchStrategy[list[dict[str, Any]]]:
    messages = st.one_of(
        _swarm_message("system", {}),
        _swarm_message("resque", {}),
        _swarm_message("flush", {}),
        _swarm_message("developer", {}),
        _swarm_message("user", {"images": st.none() | _IMAGES}),
        _swarm_message("assistant", {"tool_calls": st.none() | st.lists(_SWARM_CALL, max_size=2), "images": st.none() | _IMAGES}),
        _swarm_message("tool", {"tool_call_id": st.none() | _IDS, "images": st.none() | _IMAGES}),
    )
    return st.lists(messages, max_size=5)


# -- timestamps -------------------------------------------------------------------------


def any_timestamps() -> st.SearchStrategy[str]:
    """AgentScope timestamps of any date from 1901 to 2099: those around 1970 too, whose epoch
    milliseconds are small enough to be taken for seconds."""
    moments = st.datetimes(datetime.datetime(1901, 1, 1), datetime.datetime(2099, 12, 31))
    around_1970 = st.datetimes(datetime.datetime(1966, 1, 1), datetime.datetime(1974, 1, 1))
    return (moments | around_1970).map(lambda d: d.strftime("%Y-%m-%d %H:%M:%S.") + f"{d.microsecond // 1000:03d}")


# -- comparing what came back ----------------------------------------------------------


def _without_data_ids(block: ContentBlock) -> ContentBlock:
    if isinstance(block, DataBlock):
        return attrs.evolve(block, id="-")
    if isinstance(block, ToolResultBlock):
        return attrs.evolve(block, output=tuple(_without_data_ids(inner) for inner in block.output))
    return block


def comparable(message: Msg[Any], *, ids: bool = True, timestamps: bool = True) -> Any:
    """What of a message a round trip keeps: DataBlock ids never (fresh on every read), and the
    message ``id``/``timestamp`` only when asked."""
    return (
        type(message),
        message.id if ids else None,
        message.name,
        tuple(_without_data_ids(block) for block in message.content),
        dict(message.metadata),
        message.timestamp if timestamps else None,
        message.usage,
    )
