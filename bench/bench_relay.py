"""W8 and W9: a provider's streamed answer relayed as AgentScope events, against the SDK gathering
the same stream for itself.

The stream is W7's reply as the provider sends it: 200 text deltas, then one
tool call whose JSON arguments arrive in 20 fragments, each chunk or event the
SDK's own object, pre-built.

- ours: ``OpenAIStreamRelay`` / ``AnthropicStreamRelay`` driving a fresh
  ``ReplyEmitter``: every event to send, built as each piece arrives, each piece
  checked, the answer gathered and read at ``end()``, the model call ended;
- the way to the same events without a relay: let the SDK gather the stream
  (``ChatCompletionStreamState``; ``accumulate_event`` for each event, as its
  ``MessageStream`` does), read the answer with ``from_openai_response`` /
  ``from_anthropic_response``, then ``events_from_message``, which sends them
  all only once the answer is over;
- the SDK's gathering alone, the part of that every server pays that lets the
  SDK gather the answer.

No target: the issues set none. The relays send one event per provider delta
(200 text deltas here), ``events_from_message`` one per 32 characters (about 40).
"""

from __future__ import annotations

import inspect
from typing import Any

from bench._harness import OURS, Op, Workload
from bench.bench_stream import ARGUMENT_FRAGMENTS, CALL_ID, TEXT_DELTAS, TOOL, argument_fragments, text_deltas


def _openai_chunks() -> list[Any]:
    from openai.types.chat import ChatCompletionChunk

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> Any:
        return ChatCompletionChunk.model_validate({
            "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-4o",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        })

    pieces = argument_fragments(ARGUMENT_FRAGMENTS)
    first_call = {"index": 0, "id": CALL_ID, "type": "function", "function": {"name": TOOL, "arguments": pieces[0]}}
    return [
        chunk({"role": "assistant", "content": ""}),
        *(chunk({"content": delta}) for delta in text_deltas(TEXT_DELTAS)),
        chunk({"tool_calls": [first_call]}),
        *(chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}) for piece in pieces[1:]),
        chunk({}, "tool_calls"),
    ]


def _anthropic_events() -> list[Any]:
    from anthropic.types import RawMessageStreamEvent
    from pydantic import TypeAdapter

    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
               "usage": {"input_tokens": 100, "output_tokens": 1}}
    call = {"type": "tool_use", "id": CALL_ID, "name": TOOL, "input": {}}
    raw = [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": delta}}
          for delta in text_deltas(TEXT_DELTAS)),
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": call},
        *({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": piece}}
          for piece in argument_fragments(ARGUMENT_FRAGMENTS)),
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 50}},
        {"type": "message_stop"},
    ]
    adapter: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)
    return [adapter.validate_python(event) for event in raw]


def _relayed(relay_name: str, pieces: list[Any]) -> Op:
    """Relay ``pieces`` with the relay class of that name into a fresh reply, to the end."""
    from agentscope_py import ReplyEmitter, interop

    relay_class = getattr(interop, relay_name)

    def op() -> object:
        relay = relay_class(ReplyEmitter())
        for piece in pieces:
            relay.feed(piece)
        return relay.end()

    return op


def setup_ours_openai() -> Op:
    return _relayed("OpenAIStreamRelay", _openai_chunks())


def _openai_gathered(then_events: bool) -> Op:
    from openai.lib.streaming.chat import ChatCompletionStreamState

    from agentscope_py import events_from_message
    from agentscope_py.interop import from_openai_response

    chunks = _openai_chunks()

    def op() -> object:
        state: Any = ChatCompletionStreamState()
        for chunk in chunks:
            state.handle_chunk(chunk)
        answer = state.get_final_completion()
        return events_from_message(from_openai_response(answer)) if then_events else answer

    return op


def setup_openai_at_the_end() -> Op:
    return _openai_gathered(then_events=True)


def setup_openai_sdk() -> Op:
    return _openai_gathered(then_events=False)


def setup_ours_anthropic() -> Op:
    return _relayed("AnthropicStreamRelay", _anthropic_events())


def _anthropic_gathered(then_events: bool) -> Op:
    from anthropic.lib.streaming._messages import accumulate_event  # the SDK's MessageStream runs it per event

    from agentscope_py import events_from_message
    from agentscope_py.interop import from_anthropic_response

    events = _anthropic_events()
    # Its keyword arguments differ between releases (json_bufs is a recent one): give what this one takes.
    extra: dict[str, dict[int, bytes]] = {"json_bufs": {}} if "json_bufs" in inspect.signature(accumulate_event).parameters else {}

    def op() -> object:
        snapshot: Any = None
        buffers = {key: dict(value) for key, value in extra.items()}
        for event in events:
            snapshot = accumulate_event(event=event, current_snapshot=snapshot, **buffers)
        return events_from_message(from_anthropic_response(snapshot)) if then_events else snapshot

    return op


def setup_anthropic_at_the_end() -> Op:
    return _anthropic_gathered(then_events=True)


def setup_anthropic_sdk() -> Op:
    return _anthropic_gathered(then_events=False)


def benchmarks() -> list[Workload]:
    shape = f"{TEXT_DELTAS} text deltas + a tool call in {ARGUMENT_FRAGMENTS} argument fragments (streams/s)"
    return [
        Workload(
            "W8",
            f"relay an OpenAI stream of {shape}",
            {
                OURS: setup_ours_openai,
                "SDK gathers, then events_from_message": setup_openai_at_the_end,
                "openai SDK ChatCompletionStreamState (gathering only)": setup_openai_sdk,
            },
        ),
        Workload(
            "W9",
            f"relay an Anthropic stream of {shape}",
            {
                OURS: setup_ours_anthropic,
                "SDK gathers, then events_from_message": setup_anthropic_at_the_end,
                "anthropic SDK accumulate_event (gathering only)": setup_anthropic_sdk,
            },
        ),
    ]

