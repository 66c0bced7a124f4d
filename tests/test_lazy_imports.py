"""``import agentscope_py`` leaves the events and the JSON codec for later; both arrive when used.

Each costs a large part of the package's import time, so the package loads the
events on first use of an event name (``agentscope_py.__getattr__``) and the
codec on the first JSON call (``_serializable``); see bench/README.md for the
import-time figure this keeps under its target.
"""

from __future__ import annotations

import subprocess
import sys

import agentscope_py


def _run(code: str) -> None:
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_importing_the_package_imports_neither_the_events_nor_the_codec() -> None:
    _run(
        "import sys, agentscope_py\n"
        "loaded = {'agentscope_py.event', 'agentscope_py._codec'} & set(sys.modules)\n"
        "assert not loaded, f'loaded eagerly: {loaded}'"
    )


def test_an_event_name_loads_the_events() -> None:
    _run(
        "import sys\n"
        "from agentscope_py import TextBlockDeltaEvent\n"
        "from agentscope_py.event import TextBlockDeltaEvent as same\n"
        "assert TextBlockDeltaEvent is same and 'agentscope_py.event' in sys.modules"
    )


def test_the_converters_leave_the_events_until_a_stream_relay_is_used() -> None:
    _run(
        "import sys\n"
        "from agentscope_py import interop\n"
        "assert 'agentscope_py.event' not in sys.modules\n"
        "assert {'OpenAIStreamRelay', 'AnthropicStreamRelay'} <= set(dir(interop))\n"
        "from agentscope_py.interop import OpenAIStreamRelay\n"
        "assert 'agentscope_py.event' in sys.modules and OpenAIStreamRelay.__name__ == 'OpenAIStreamRelay'\n"
        "assert not hasattr(interop, 'NoSuchRelay')"
    )


def test_the_first_json_call_loads_the_codec() -> None:
    _run(
        "from agentscope_py import Msg, UserMessage\n"
        "message = UserMessage('hi', id='m1', timestamp='2025-01-01 12:00:00.000')\n"
        "assert Msg.from_json(message.to_json()) == message"
    )


def test_decoding_first_loads_the_codec_too() -> None:
    _run("from agentscope_py import TextBlock\nassert TextBlock.from_dict({'type': 'text', 'text': 'x'}) == TextBlock('x')")


def test_every_public_name_resolves() -> None:
    missing = [name for name in agentscope_py.__all__ if not hasattr(agentscope_py, name)]
    assert not missing
    assert agentscope_py.event.AgentEvent is agentscope_py.AgentEvent


def test_unknown_names_still_raise_attribute_error() -> None:
    assert not hasattr(agentscope_py, "NoSuchName")


def test_dir_lists_the_lazy_names_without_loading_them() -> None:
    _run(
        "import sys, agentscope_py\n"
        "listed = dir(agentscope_py)\n"
        "assert {'MessageAssembler', 'TextBlockDeltaEvent', 'assemble', 'event'} <= set(listed)\n"
        "assert set(agentscope_py.__all__) <= set(listed)\n"
        "assert 'agentscope_py.event' not in sys.modules"
    )


def test_the_sse_module_leaves_httpx_until_the_async_client_is_used() -> None:
    _run(
        "import sys\n"
        "from agentscope_py import sse\n"
        "assert 'httpx' not in sys.modules and 'AsyncResumableEventStream' in dir(sse)\n"
        "from agentscope_py.sse import AsyncResumableEventStream\n"
        "assert 'httpx' in sys.modules and AsyncResumableEventStream.__module__ == 'agentscope_py._sse_async'\n"
        "assert not hasattr(sse, 'NoSuchClient')"
    )


def test_without_httpx_the_async_client_says_what_to_install() -> None:
    _run(
        "import sys\n"
        "sys.modules['httpx'] = None  # as if it were not installed\n"
        "from agentscope_py import sse\n"
        "try:\n"
        "    sse.AsyncResumableEventStream\n"
        "except ModuleNotFoundError as error:\n"
        "    assert str(error).endswith(\"not installed: pip install httpx (or this package's async extra: \"\n"
        "        \"pip install '.[async]' from a checkout)\") and error.name == 'httpx', error\n"
        "else:\n"
        "    raise AssertionError('no error')\n"
        "assert sse.ResumableEventStream.__name__ == 'ResumableEventStream'\n"
        "# what lists the module's names leaves it out: a star import, dir(), help()\n"
        "assert 'AsyncResumableEventStream' not in dir(sse) and 'ResumableEventStream' in dir(sse)\n"
        "exec('from agentscope_py.sse import *', {})"
    )
