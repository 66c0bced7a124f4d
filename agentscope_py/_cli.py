"""The ``agentscope-py`` command."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Sequence
from itertools import groupby

from ._blocks import TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from ._enums import GenerateReason, ToolResultState
from ._messages import Msg
from ._role_messages import AssistantMessage, SystemMessage, ToolResultMessage, UserMessage
from ._usage import ChatUsage
from .errors import RoleContentError

__all__ = ["main"]


def _show(title: str, msg: Msg) -> None:
    print(f"== {title}: {type(msg).__name__} (role {msg.role.value if msg.role else None}, name {msg.name!r})")
    print(f"   id {msg.id}  at {msg.timestamp}")
    for index, block in enumerate(msg.content):
        print(f"   [{index}] {block!r}")
    if msg.usage is not None:
        print(f"   usage: {msg.usage.total_tokens} tokens ({msg.usage!r})")
    if Msg.METADATA_GENERATE_REASON in msg.metadata:  # a reply that recorded why it ended
        print(f"   generate reason: {msg.get_generate_reason().name}")


def demo() -> int:
    """Build one message of each role with the builders, stream the reply as events and rebuild it,
    and show a role rule at work."""
    system = SystemMessage.builder().name("system").text_content("You are a weather assistant.").build()
    user = UserMessage.builder().name("alice").text_content("Do I need an umbrella in Paris?").build()
    call = ToolUseBlock.builder().id("call-1").name("get_weather").input({"city": "Paris"}).build()
    assistant = (
        AssistantMessage.builder()
        .name("Friday")
        .content(
            ThinkingBlock.builder().thinking("I need today's forecast for Paris.").build(),
            TextBlock.builder().text("Let me check the forecast.").build(),
            call,
        )
        .usage(ChatUsage.builder().input_tokens(42).output_tokens(17).time(0.8).build())
        .generate_reason(GenerateReason.TOOL_CALLS)
        .build()
    )
    result = (
        ToolResultMessage.builder()
        .result(
            ToolResultBlock.builder()
            .id(call.id)
            .name(call.name)
            .output(TextBlock("Rain, 14°C"))
            .state(ToolResultState.SUCCESS)
            .build()
        )
        .build()
    )
    for title, msg in (("system", system), ("user", user), ("assistant", assistant), ("tool", result)):
        _show(title, msg)
    print(f"== assistant text: {assistant.get_text_content()!r}")
    print(f"== tool calls: {[c.name for c in assistant.get_content_blocks(ToolUseBlock)]}")
    if not _stream(assistant):  # pragma: no cover - the stream lost something
        return 1

    print("== a tool call in a system message is refused:")
    try:
        SystemMessage.builder().content(call).build()  # type: ignore[arg-type]  # the point of the demo
    except RoleContentError as error:
        print(f"   RoleContentError: {error}")
    else:  # pragma: no cover - the role rule is broken
        print("   accepted: the role rule is broken")
        return 1
    return 0


def _pieces(text: str, size: int = 8) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]


def _stream(reply: AssistantMessage) -> bool:
    """Send ``reply`` as events while "the model" writes it, as a server does, and rebuild it as a
    client does; whether the client ends with the server's message."""
    from .event import MessageAssembler, ReplyEmitter  # here: the event classes cost import time

    server, client = ReplyEmitter(reply.name), MessageAssembler(strict=True)
    sent = []
    for block in reply.content:
        if isinstance(block, ThinkingBlock):
            sent += [event for piece in _pieces(block.thinking) for event in server.thinking(piece)]
        elif isinstance(block, TextBlock):
            sent += [event for piece in _pieces(block.text) for event in server.text(piece)]
        elif isinstance(block, ToolUseBlock) and block.id is not None:
            arguments = _pieces(json.dumps(dict(block.input)))
            sent += [event for piece in arguments for event in server.tool_call(block.id, block.name, piece)]
    sent += server.end_model_call(reply.usage)
    sent += server.finish(reply.get_generate_reason())
    done, shown = [], ""
    for count, event in enumerate(sent, 1):
        done += client.feed(event)
        live = client.snapshot()
        if not shown and live is not None and live.get_text_content():
            shown = f"after {count} events, the client shows {live.get_text_content()!r}"
    runs = [(name, len(list(group))) for name, group in groupby(event.type.value for event in sent)]
    print("== the assistant's reply, streamed as the model writes it (ReplyEmitter, then MessageAssembler):")
    print(f"   {len(sent)} events: " + ", ".join(name if count == 1 else f"{count} x {name}" for name, count in runs))
    print(f"   {shown}")
    same = done == [server.message] and server.message.get_text_content() == reply.get_text_content()
    print(f"   the client ends with the server's message: {same}")
    return same


_SCHEMA_KINDS = ("message", "block", "source", "usage", "event")


def _schema_kind(given: str) -> str:
    kind = given.lower()
    if kind not in _SCHEMA_KINDS:  # said with what was typed, not the lower-cased form
        raise argparse.ArgumentTypeError(f"invalid choice: {given!r} (choose from {', '.join(map(repr, _SCHEMA_KINDS))})")
    return kind


def schema(kind: str) -> int:
    """Print the JSON Schema of one kind of wire document."""
    from . import ContentBlock, Source
    from .event import AgentEvent
    from .schema import json_schema

    classes: dict[str, type] = {
        "message": Msg, "block": ContentBlock, "source": Source, "usage": ChatUsage, "event": AgentEvent
    }
    print(json.dumps(json_schema(classes[kind]), indent=2))  # ASCII: escapes valid in any output
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="agentscope-py", description="agentscope_py, the message layer for LLM agents: a demo and the JSON Schema."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    # Not required=True: argparse would then say a command is missing before naming an option it
    # does not know (`agentscope-py --bogus`).  A missing command is said below, in the same words.
    commands = parser.add_subparsers(dest="command", title="commands", metavar="{demo,schema}")
    commands.add_parser(
        "demo", help="build and print a small conversation", description="Build and print a small conversation."
    )
    schema_command = commands.add_parser(
        "schema",
        help="print the JSON Schema of the wire format",
        description="Print the JSON Schema (draft 2020-12) of one kind of wire document.",
    )
    schema_command.add_argument(
        "kind", nargs="?", default="message", type=_schema_kind, metavar="kind",
        help=f"the document kind, in any case: {', '.join(_SCHEMA_KINDS)} (default: message)",
    )
    # Output the terminal or pipe cannot encode ("°") is escaped rather than fatal; only while this
    # runs, since main() may be called inside another program.
    stdout = sys.stdout
    errors = stdout.errors if isinstance(stdout, io.TextIOWrapper) else None
    if isinstance(stdout, io.TextIOWrapper):
        stdout.reconfigure(errors="backslashreplace")
    # The output is flushed where a failure to write it is caught: a short one would otherwise sit in
    # the buffer until Python flushes it on exit, and fail there with a traceback.
    try:
        try:
            args = parser.parse_args(argv)  # a usage error goes to stderr, whatever stdout is
            if args.command is None:
                parser.error(f"the following arguments are required: {commands.metavar}")
        except SystemExit:  # --help and --version print, then exit
            try:
                if sys.stdout is not None:
                    sys.stdout.flush()
            except OSError:
                # argparse ignores a failure to write what it prints (unbuffered, it writes at once):
                # so does this, and nothing is left for Python's own flush at exit to fail on.
                _discard_stdout()
            raise
        if sys.stdout is None:  # started with stdout closed (`agentscope-py demo >&-`): print() would drop it all
            if sys.stderr is not None:
                print("agentscope-py: there is no standard output to write to", file=sys.stderr)
            return 1
        status = schema(args.kind) if args.command == "schema" else demo()
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # The reader went away (``agentscope-py schema | head``): stop quietly, as other commands do.
        _discard_stdout()
        return 1
    except OSError as error:  # a full disk, a closed terminal: say so in one line, not a traceback
        _discard_stdout()
        print(f"agentscope-py: cannot write the output: {error.strerror or error}", file=sys.stderr)
        return 1
    finally:  # what could not be written is gone by now (_discard_stdout): the flush this makes succeeds
        if isinstance(stdout, io.TextIOWrapper) and errors is not None:
            stdout.reconfigure(errors=errors)


def _discard_stdout() -> None:
    # What could not be written stays buffered: Python would try again when it flushes stdout on
    # exit, and complain then.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _version() -> str:
    from . import __version__

    return __version__


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
