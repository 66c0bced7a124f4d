"""What users of pyright (and Pylance, which runs it) see: every exported name fully typed, and a
write to a field that does not exist refused, as mypy refuses it.

basedpyright is pyright with node in its wheel, so it installs from the package index alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _pyright(*args: str, cwd: Path) -> dict[str, Any]:
    # The package from this checkout, on the path pyright asks the interpreter for: it does not follow
    # the import hook of an editable install.
    done = subprocess.run(
        [sys.executable, "-m", "basedpyright", "--outputjson", "--pythonpath", sys.executable, *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_every_exported_name_is_fully_typed(tmp_path: Path) -> None:
    # docs/typing.md says so. An assignment to a class's __setattr__ made every class of the package
    # (and whatever takes or gives one) of ambiguous type to pyright, and nothing said so for 61 commits.
    report = _pyright("--verifytypes", "agentscope_py", "--ignoreexternal", cwd=tmp_path)
    completeness = report["typeCompleteness"]
    ambiguous = [symbol["name"] for symbol in completeness["symbols"] if not symbol["isTypeKnown"]]
    assert ambiguous == []
    assert completeness["completenessScore"] == 1.0


def test_a_write_to_a_field_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    # The same mistakes tests/typing/fail/reject_values.py has mypy refuse.
    checked = tmp_path / "misspelt.py"
    checked.write_text(
        "from agentscope_py import TextBlock, UserMessage\n"
        "\n"
        'message = UserMessage("hi")\n'
        'message.nmae = "bob"\n'
        'TextBlock("x").txt = "y"\n'
        'message.name = "bob"\n'
        'print(message.name, TextBlock("x").text)\n'
    )
    report = _pyright(checked.name, cwd=tmp_path)
    refused = sorted(
        diagnostic["range"]["start"]["line"] + 1
        for diagnostic in report["generalDiagnostics"]
        if diagnostic["severity"] == "error"
    )
    assert refused == [4, 5, 6]
