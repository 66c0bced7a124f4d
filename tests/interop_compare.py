"""Comparing messages across a converter round trip, and conversations a format can hold.

A provider format has no message ids, timestamps or data-block ids, so
``comparable`` leaves those out; it also reads a call's missing raw argument
text as the compact JSON the converters write for it.  Everything else (class,
name, every block field, metadata) must survive.
"""

from __future__ import annotations

import base64
import json
from typing import Any, Literal

import attrs
from hypothesis import strategies as st
from strategies import json_objects, json_text

from agentscope_py import (
    AssistantMessage,
    Base64Source,
    ContentBlock,
    DataBlock,
    Msg,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolResultMessage,
    ToolResultState,
    ToolUseBlock,
    URLSource,
    UserMessage,
)

__all__ = ["as_anthropic_takes_them", "comparable", "conversations_for"]

_NO_ID = "0" * 32


def _block(block: ContentBlock) -> ContentBlock:
    if isinstance(block, DataBlock):
        return attrs.evolve(block, id=_NO_ID)
    if isinstance(block, ToolUseBlock) and block.content is None:
        return attrs.evolve(block, content=json.dumps(dict(block.input), separators=(",", ":"), ensure_ascii=False))
    if isinstance(block, ToolResultBlock):
        return attrs.evolve(block, output=tuple(map(_block, block.output)))
    return block


def comparable(messages: list[Msg]) -> list[tuple[Any, ...]]:
    return [(type(m), m.name, tuple(map(_block, m.content)), dict(m.metadata)) for m in messages]


Format = Literal["openai", "anthropic"]
_B64 = st.binary(max_size=16).map(lambda raw: base64.b64encode(raw).decode())
_URLS = st.sampled_from(["https://example.com/cat.png", "https://example.com/a/b.jpg?x=1"])


def _texts(fmt: Format) -> st.SearchStrategy[str]:
    # Anthropic has no blank text block (the API refuses one): to_anthropic leaves them out.
    return json_text() if fmt == "openai" else json_text().filter(str.strip)


def _text_blocks(fmt: Format, min_size: int = 0) -> st.SearchStrategy[list[TextBlock]]:
    return st.lists(st.builds(TextBlock, _texts(fmt)), min_size=min_size, max_size=3)


def _media(fmt: Format) -> st.SearchStrategy[DataBlock]:
    images = st.one_of(
        st.builds(DataBlock, st.builds(Base64Source, st.sampled_from(["image/png", "image/gif"]), _B64)),
        st.builds(DataBlock, st.builds(URLSource, _URLS)),
    )
    pdf = st.builds(Base64Source, st.just("application/pdf"), _B64)
    titles = st.none() | json_text(max_size=8)
    if fmt == "openai":
        audio = st.builds(DataBlock, st.builds(Base64Source, st.sampled_from(["audio/wav", "audio/mpeg"]), _B64))
        return st.one_of(images, audio, st.builds(DataBlock, pdf, name=titles))
    plain = json_text().map(
        lambda text: Base64Source("text/plain", base64.b64encode(text.encode("utf-8", "surrogatepass")).decode())
    )
    pdf_url = st.builds(URLSource, st.just("https://example.com/doc.pdf"), st.just("application/pdf"))
    return st.one_of(images, st.builds(DataBlock, pdf | plain | pdf_url, name=titles))


def _calls(prefix: str) -> st.SearchStrategy[list[ToolUseBlock]]:
    def call(index: int, name: str, arguments: dict[str, Any], raw: bool) -> ToolUseBlock:
        text = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False) if raw else None
        return ToolUseBlock(f"{prefix}_{index}", name, arguments, text)

    one = st.builds(call, st.just(0), st.sampled_from(["get_weather", "search"]), json_objects(), st.booleans())
    return st.lists(one, max_size=2).map(lambda calls: [attrs.evolve(c, id=f"{prefix}_{i}") for i, c in enumerate(calls)])


@st.composite
def _conversation(draw: st.DrawFn, fmt: Format) -> list[Msg]:
    names = st.none() | st.sampled_from(["alice", "bot"]) if fmt == "openai" else st.none()
    messages: list[Msg] = []
    if draw(st.booleans()):
        messages.append(SystemMessage(draw(_text_blocks(fmt)), name=draw(names)))
    for turn in range(draw(st.integers(min_value=1, max_value=3))):
        # Not empty: an empty user turn next to the tool results merges into nothing in Anthropic.
        user = st.lists(st.builds(TextBlock, _texts(fmt)) | _media(fmt), min_size=1, max_size=3)
        messages.append(UserMessage(draw(user), name=draw(names)))
        calls = draw(_calls(f"call{turn}"))
        content: list[ContentBlock] = []
        if fmt == "anthropic" and draw(st.booleans()):
            content.append(ThinkingBlock(draw(json_text()), {"anthropic": {"signature": "EqQBCkYIARgC"}}))
        texts = draw(_text_blocks(fmt, min_size=0 if calls else 1))
        if not calls and not any(t.text.strip() for t in texts):
            texts.append(TextBlock("ok"))  # an assistant message must say something
        content += texts
        messages.append(AssistantMessage([*content, *calls], name=draw(names)))
        if calls:
            states = [ToolResultState.SUCCESS] + ([ToolResultState.ERROR] if fmt == "anthropic" else [])
            kinds = st.builds(TextBlock, _texts(fmt)) | (st.nothing() if fmt == "openai" else _media(fmt))
            output = st.lists(kinds, max_size=2)
            messages.append(
                ToolResultMessage(
                    [ToolResultBlock(c.id, c.name, draw(output), state=draw(st.sampled_from(states))) for c in calls]
                )
            )
    return messages


def conversations_for(fmt: Format) -> st.SearchStrategy[list[Msg]]:
    """Valid conversations (every call answered right after it) holding only what ``fmt`` can carry."""
    return _conversation(fmt)


def as_anthropic_takes_them(messages: list[Msg]) -> list[Msg]:
    """The conversation with the media of its error results left out (Anthropic's API takes only text
    there), without a system message that says nothing (which gives no ``system``), and with no
    whitespace ending a last assistant message (the API refuses it there)."""
    taken = [
        message.with_content(
            attrs.evolve(block, output=[inner for inner in block.output if isinstance(inner, TextBlock)])
            if isinstance(block, ToolResultBlock) and block.state is ToolResultState.ERROR
            else block
            for block in message.content
        )
        for message in messages
        if not isinstance(message, SystemMessage) or message.get_text_content().strip()
    ]
    last = taken[-1] if taken else None
    if isinstance(last, AssistantMessage) and last.content and isinstance(last.content[-1], TextBlock):
        taken[-1] = last.with_content([*last.content[:-1], TextBlock(last.content[-1].text.rstrip())])
    return taken
