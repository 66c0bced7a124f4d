"""The code in the documentation runs, asserts what it claims, and type-checks.

Every fenced ```python block of README.md and docs/**/*.md runs; the blocks of
one file run in order in one namespace, as a reader would paste them.  A block
that is not meant to run is fenced as ```text (or anything but python).
Each python block must assert something, so an example cannot silently stop
showing what its prose says.  The pages in ``TYPE_CHECKED`` are also checked
with ``mypy --strict``, which is how docs/typing.md proves what mypy catches:
its counter-examples carry ``# type: ignore[code]``, and strict mode reports an
ignore that is no longer needed.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from mypy_runs import run_mypy

from agentscope_py import ALLOWED_BLOCKS, ContentBlock

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
TYPE_CHECKED = [
    ROOT / "README.md",
    *(
        ROOT / "docs" / name
        for name in (
            "index.md", "quickstart.md", "messages.md", "typing.md", "java-to-python.md", "wire-format.md", "events.md", "sse.md",
        )
    ),
    *sorted((ROOT / "docs" / "interop").glob("*.md")),
]


@dataclass(frozen=True)
class CodeBlock:
    path: Path
    line: int  # the line of the block's first code line in its file, 1-based
    code: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    def padded(self) -> str:
        """The code behind blank lines, so line numbers in errors are the file's."""
        return "\n" * (self.line - 1) + self.code


def python_blocks(path: Path) -> list[CodeBlock]:
    blocks: list[CodeBlock] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    fence: str | None = None  # the opening fence while inside a block
    is_python = False
    start = 0
    body: list[str] = []
    for number, line in enumerate(lines, start=1):
        stripped = line.lstrip()
        if fence is None:
            if stripped.startswith("```"):
                fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
                info = stripped[len(fence) :].split()
                is_python = bool(info) and info[0] == "python"
                start, body = number + 1, []
        elif stripped.startswith(fence) and not stripped.strip("`"):
            if is_python:
                blocks.append(CodeBlock(path, start, textwrap.dedent("\n".join(body)) + "\n"))
            fence = None
        else:
            body.append(line)
    assert fence is None, f"{path.relative_to(ROOT)}: a ``` fence opened at line {start - 1} is never closed"
    return blocks


def _page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_python_blocks_run(page: Path) -> None:
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    for block in python_blocks(page):
        try:
            exec(compile(block.padded(), str(page), "exec"), namespace)
        except Exception as error:
            raise AssertionError(
                f"{block.where}: this python block failed: {type(error).__name__}: {error}"
            ) from error


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_python_blocks_assert_something(page: Path) -> None:
    for block in python_blocks(page):
        tree = ast.parse(block.padded(), str(page))
        assert any(isinstance(node, ast.Assert) for node in ast.walk(tree)), (
            f"{block.where}: this python block asserts nothing; show what it does with an assert "
            "(or fence it as ```text if it is not meant to run)"
        )


def test_documented_pages_exist() -> None:
    # The map in docs/index.md links the pages; a renamed page must not leave the map pointing nowhere.
    missing = [str(path.relative_to(ROOT)) for path in TYPE_CHECKED if not path.exists()]
    assert not missing


def test_type_checked_pages_pass_mypy_strict(tmp_path: Path) -> None:
    # One module per page, its blocks joined in order at their own line numbers.
    modules: dict[str, str] = {}  # module file -> the page it came from, to word the errors
    for page in TYPE_CHECKED:
        lines: list[str] = []
        for block in python_blocks(page):
            lines.extend([""] * (block.line - 1 - len(lines)))
            lines.extend(block.code.splitlines())
        # Named after the page's path: docs/index.md and docs/interop/index.md are two modules.
        module = tmp_path / ("_".join(page.relative_to(ROOT).with_suffix("").parts).replace("-", "_") + ".py")
        module.write_text("\n".join(lines) + "\n", encoding="utf-8")
        modules[str(module)] = str(page.relative_to(ROOT))
    stdout, stderr, status = run_mypy(
        ["--strict", "--no-error-summary", "--cache-dir", str(tmp_path / ".mypy_cache"), *modules]
    )
    for module_file, page_name in modules.items():
        stdout = stdout.replace(module_file, page_name)
    assert status == 0, f"mypy --strict on the documented examples:\n{stdout}{stderr}"


# -- the role table of docs/messages.md ---------------------------------------------------

ROLE_TABLE_START = "<!-- role-table: checked against ALLOWED_BLOCKS by tests/test_docs.py -->"
ROLE_TABLE_END = "<!-- /role-table -->"


def render_role_table() -> str:
    """The table as docs/messages.md must show it, made from ``ALLOWED_BLOCKS``."""
    rows = ["| role | may hold |", "|---|---|"]
    for role, allowed in ALLOWED_BLOCKS.items():
        held = "any block" if ContentBlock in allowed else ", ".join(f"`{cls.__name__}`" for cls in allowed)
        rows.append(f"| `{role.name}` | {held} |")
    return "\n".join(rows)


def test_role_table_matches_allowed_blocks() -> None:
    text = (ROOT / "docs" / "messages.md").read_text(encoding="utf-8")
    assert ROLE_TABLE_START in text and ROLE_TABLE_END in text, "docs/messages.md lost its role-table markers"
    shown = text.split(ROLE_TABLE_START, 1)[1].split(ROLE_TABLE_END, 1)[0].strip()
    assert shown == render_role_table(), (
        "docs/messages.md's role table differs from ALLOWED_BLOCKS; replace it with:\n" + render_role_table()
    )


# -- the error table of docs/messages.md ---------------------------------------------------


def test_the_error_table_lists_every_error_with_its_bases() -> None:
    from agentscope_py import errors

    text = (ROOT / "docs" / "messages.md").read_text(encoding="utf-8")
    table = text.split("## Errors", 1)[1]
    rows = {line.split("|")[1].strip().strip("`"): line.split("|")[2] for line in table.splitlines() if line.startswith("| `")}
    exported = [getattr(errors, name) for name in errors.__all__ if name != "AgentScopeError"]
    assert sorted(rows) == sorted(cls.__name__ for cls in exported), "docs/messages.md's error table is not errors.__all__"
    for cls in exported:
        assert [name.strip(" `") for name in rows[cls.__name__].split(",")] == [base.__name__ for base in cls.__bases__]
