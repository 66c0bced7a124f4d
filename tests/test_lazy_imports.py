"""``import agentscope_py`` leaves the event classes for later, and they still arrive by name.

The events cost as much to import as the whole message model, so the package
loads them on first use (``agentscope_py.__getattr__``); see bench/README.md
for the import-time figure this keeps under its target.
"""

from __future__ import annotations

import subprocess
import sys

import agentscope_py


def _run(code: str) -> None:
    subprocess.run([sys.executable, "-c", code], check=True)


def test_importing_the_package_does_not_import_the_events() -> None:
    _run("import sys, agentscope_py; assert 'agentscope_py.event' not in sys.modules, 'events loaded eagerly'")


def test_an_event_name_loads_the_events() -> None:
    _run(
        "import sys\n"
        "from agentscope_py import TextBlockDeltaEvent\n"
        "from agentscope_py.event import TextBlockDeltaEvent as same\n"
        "assert TextBlockDeltaEvent is same and 'agentscope_py.event' in sys.modules"
    )


def test_every_public_name_resolves() -> None:
    missing = [name for name in agentscope_py.__all__ if not hasattr(agentscope_py, name)]
    assert not missing
    assert agentscope_py.event.AgentEvent is agentscope_py.AgentEvent


def test_unknown_names_still_raise_attribute_error() -> None:
    assert not hasattr(agentscope_py, "NoSuchName")
