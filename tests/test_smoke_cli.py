"""The demo command: the first thing a new user runs."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys

import pytest

import agentscope_py
from agentscope_py._cli import main


def test_demo_prints_every_role_and_the_refusal(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    for title in ("SystemMessage", "UserMessage", "AssistantMessage", "ToolResultMessage"):
        assert title in out
    assert "RoleContentError: SYSTEM message may only contain text blocks, got ToolUseBlock at content[0]" in out
    assert out.count("generate reason:") == 1 and "generate reason: TOOL_CALLS" in out  # the reply's alone
    assert "3 x TOOL_CALL_DELTA, TOOL_CALL_END, MODEL_CALL_END, REQUEST_STOP, AGENT_END" in out
    assert "after 11 events, the client shows 'Let me c'" in out
    assert "the client ends with the server's message: True" in out


def test_python_dash_m_runs_the_demo() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentscope_py", "demo"], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "get_weather" in done.stdout


def _environment(buffered: bool) -> dict[str, str]:
    # Buffered, as Python writes to a pipe or a file by default: a short output is only written when
    # Python flushes it; unbuffered (PYTHONUNBUFFERED, which some shells and CI runners set), at once.
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    return {**environment, "PYTHONUNBUFFERED": "1"} if not buffered else environment


# A short output (the demo, the usage schema) fits Python's buffer; a long one (the message schema) does not.
OUTPUTS = [["demo"], ["schema", "usage"], ["schema"]]
# What argparse prints: it ignores a failure to write it, and so does the command, buffered or not.
ARGPARSE_OUTPUTS = [["--help"], ["--version"]]


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("command", OUTPUTS, ids=" ".join)
def test_a_reader_that_went_away_gets_no_traceback(command: list[str], buffered: bool) -> None:
    # As `agentscope-py schema | head -1`, made certain: the reading end is closed before anything is written.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "agentscope_py", *command], stdout=write_end, capture_output=False,
            stderr=subprocess.PIPE, text=True, check=False, timeout=60, env=_environment(buffered),
        )
    finally:
        os.close(write_end)
    assert done.returncode == 1
    assert done.stderr == ""


def test_no_standard_output_is_an_error() -> None:
    # `agentscope-py demo >&-`: Python runs with no sys.stdout and would print nothing, silently.
    done = subprocess.run(
        [sys.executable, "-m", "agentscope_py", "demo"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, check=False, timeout=60, preexec_fn=lambda: os.close(1),
    )
    assert done.returncode == 1
    assert done.stderr == "agentscope-py: there is no standard output to write to\n"


def test_a_usage_error_is_a_usage_error_even_with_no_standard_output() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentscope_py", "bogus"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, check=False, timeout=60, preexec_fn=lambda: os.close(1),
    )
    assert done.returncode == 2
    assert "invalid choice: 'bogus' (choose from 'demo', 'schema')" in done.stderr


def test_a_missing_command_is_named_as_the_usage_line_shows_it() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentscope_py"], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.endswith("error: the following arguments are required: {demo,schema}\n")


def test_main_leaves_the_output_error_handler_as_it_found_it(capsys: pytest.CaptureFixture[str]) -> None:
    before = sys.stdout.errors
    assert before != "backslashreplace"  # else this test shows nothing
    assert main(["schema", "usage"]) == 0
    assert sys.stdout.errors == before


def test_the_schema_is_printed_in_ascii_so_no_output_needs_escapes_json_lacks(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # An output that cannot show a character escapes it as \xNN, which is no JSON escape: the schema
    # must have none to escape.  Today's schemas are ASCII; a description in another script must stay valid.
    import agentscope_py.schema

    monkeypatch.setattr(agentscope_py.schema, "json_schema", lambda root: {"title": "café ☕"})
    assert main(["schema"]) == 0
    out = capsys.readouterr().out
    assert out.isascii() and json.loads(out) == {"title": "café ☕"}


def test_importing_the_main_module_runs_nothing() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import agentscope_py.__main__"], capture_output=True, text=True, check=False, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.parametrize("argv", [["--bogus"], ["-V"], ["--bogus", "demo"]])
def test_an_unknown_option_is_named_with_or_without_a_command(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentscope_py", *argv], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.endswith(f"error: unrecognized arguments: {argv[0]}\n")


def test_unknown_command_exits_with_usage_error() -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["nonsense"])
    assert exit_info.value.code == 2


@pytest.mark.parametrize("root", ["message", "block", "source", "usage", "event"])
def test_schema_command_prints_a_draft_2020_12_schema(root: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", root]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert document["$defs"]


def test_schema_command_defaults_to_messages(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    assert "Msg" in json.loads(capsys.readouterr().out)["title"]


def test_schema_command_takes_the_kind_in_any_case(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "Event"]) == 0
    assert "AgentEvent" in json.loads(capsys.readouterr().out)["title"]


def test_schema_command_names_the_kind_it_refuses_as_the_help_does(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["schema", "MESAGE"])
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith("usage: agentscope-py schema [-h] [kind]\n")
    assert error.endswith(
        "argument kind: invalid choice: 'MESAGE' (choose from 'message', 'block', 'source', 'usage', 'event')\n"
    )


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out.strip() == "agentscope-py 0.1.0"
    # One version: the package's metadata reads it from __version__ (pyproject's dynamic version).
    assert importlib.metadata.version("agentscope-py") == agentscope_py.__version__ == "0.1.0"


def test_an_output_that_cannot_show_the_text_gets_it_escaped() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentscope_py", "demo"], capture_output=True, text=True, check=False, timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
    )
    assert done.returncode == 0, done.stderr
    assert "14\\xb0C" in done.stdout


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs a device that is always full (Linux)")
@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("command", OUTPUTS, ids=" ".join)
def test_a_full_disk_is_one_line_not_a_traceback(command: list[str], buffered: bool) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "agentscope_py", *command], stdout=full, stderr=subprocess.PIPE, text=True,
            check=False, timeout=60, env=_environment(buffered),
        )
    assert done.returncode == 1
    assert done.stderr == "agentscope-py: cannot write the output: No space left on device\n"


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("command", ARGPARSE_OUTPUTS, ids=" ".join)
@pytest.mark.parametrize(
    "output",
    [
        "closed pipe",
        pytest.param("full disk", marks=pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")),
    ],
)
def test_help_that_cannot_be_written_ends_as_argparse_ends_it(command: list[str], buffered: bool, output: str) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        with open("/dev/full" if output == "full disk" else os.devnull, "w") as full:
            done = subprocess.run(
                [sys.executable, "-m", "agentscope_py", *command], stdout=full if output == "full disk" else write_end,
                stderr=subprocess.PIPE, text=True, check=False, timeout=60, env=_environment(buffered),
            )
    finally:
        os.close(write_end)
    # From Python 3.11 on, argparse ignores an output error of --help and exits with 0.  Before, the
    # error escapes it (unbuffered, at the write), and the command ends as for any output it cannot write.
    if sys.version_info < (3, 11) and not buffered:
        said = "" if output == "closed pipe" else "agentscope-py: cannot write the output: No space left on device\n"
        assert (done.returncode, done.stderr) == (1, said)
    else:
        assert (done.returncode, done.stderr) == (0, "")
