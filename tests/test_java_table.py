"""docs/java-to-python.md cannot drift from the code.

The page's tables (header ``| Java | Python | Notes |``) give, for every Java
method, the Python to write.  Each backticked span in a *Python* cell is a
reference such as ``Msg.get_text_content()``, ``ChatUsage.builder().input_tokens(n)``
or ``ToolUseBlock(id, name, input, metadata=metadata)``: everything before the
last name is evaluated against the package, the last name must exist there,
and keyword arguments must be accepted.  The arguments themselves are
placeholders and are not evaluated.  In the other direction, every field,
enum member and metadata-key constant of the core classes must be listed.
"""

from __future__ import annotations

import ast
import enum
import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import attrs
import pytest

import agentscope_py
from agentscope_py import (
    AudioBlock,
    Base64Source,
    ChatUsage,
    DataBlock,
    GenerateReason,
    HintBlock,
    ImageBlock,
    MessageMetadataKeys,
    Msg,
    MsgRole,
    TextBlock,
    ThinkingBlock,
    ToolCallState,
    ToolResultBlock,
    ToolResultState,
    ToolUseBlock,
    URLSource,
    VideoBlock,
)

PAGE = Path(__file__).resolve().parent.parent / "docs" / "java-to-python.md"
HEADER = ["Java", "Python", "Notes"]
NO_EQUIVALENT = "—"

# The classes whose every field must have a row (a Java getter maps to it).
VALUE_CLASSES: list[type] = [
    ChatUsage, URLSource, Base64Source, TextBlock, ThinkingBlock, DataBlock, ImageBlock, AudioBlock,
    VideoBlock, HintBlock, ToolUseBlock, ToolResultBlock, Msg,
]
ENUMS: list[type[enum.Enum]] = [MsgRole, GenerateReason, ToolCallState, ToolResultState]
CONSTANT_HOLDERS: list[type] = [Msg, MessageMetadataKeys, ThinkingBlock, ToolUseBlock, ToolResultBlock]
PUBLIC_NAMES: dict[str, Any] = {name: getattr(agentscope_py, name) for name in agentscope_py.__all__}


@dataclass(frozen=True)
class Row:
    line: int
    java: str
    python: str
    notes: str

    @property
    def references(self) -> list[str]:
        return re.findall(r"`([^`]+)`", self.python)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def table_rows() -> list[Row]:
    rows: list[Row] = []
    in_table = False
    for number, line in enumerate(PAGE.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.startswith("|"):
            in_table = False
            continue
        cells = _cells(line)
        if cells == HEADER:
            in_table = True
        elif in_table and not set(line) <= set("|-: "):
            assert len(cells) == 3, f"{PAGE.name}:{number}: a row needs 3 cells, got {len(cells)}"
            rows.append(Row(number, *cells))
    return rows


ROWS = table_rows()


def _evaluate(node: ast.expr) -> Any:
    """The value of a reference prefix such as ``ChatUsage.builder()``, against the package's public names."""
    return eval(compile(ast.Expression(node), PAGE.name, "eval"), {"__builtins__": {}}, PUBLIC_NAMES)


def check_reference(reference: str) -> None:
    """Raise AssertionError unless ``reference`` names something that exists, as written."""
    node = ast.parse(reference, mode="eval").body
    call = node if isinstance(node, ast.Call) else None
    target = call.func if call is not None else node
    if isinstance(target, ast.Name):
        assert target.id in PUBLIC_NAMES, f"{target.id} is not a public name of agentscope_py"
        value = PUBLIC_NAMES[target.id]
    elif isinstance(target, ast.Attribute):
        owner = _evaluate(target.value)
        assert hasattr(owner, target.attr), f"{ast.unparse(target.value)} has no attribute {target.attr!r}"
        value = getattr(owner, target.attr)
    else:
        raise AssertionError(f"not a reference: {reference}")
    if call is not None:
        assert callable(value), f"{ast.unparse(target)} is not callable"
        parameters = inspect.signature(value).parameters
        takes_any_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
        for keyword in call.keywords:
            assert keyword.arg is None or takes_any_keyword or keyword.arg in parameters, (
                f"{ast.unparse(target)} takes no keyword {keyword.arg!r}"
            )


def test_the_page_has_tables() -> None:
    assert len(ROWS) > 100


@pytest.mark.parametrize("row", ROWS, ids=lambda row: f"line{row.line}")
def test_row_names_python_that_exists(row: Row) -> None:
    assert row.java, f"{PAGE.name}:{row.line}: empty Java cell"
    if row.python.startswith(NO_EQUIVALENT):
        assert row.notes, f"{PAGE.name}:{row.line}: say in the notes why there is no Python equivalent"
        return
    assert row.references, f"{PAGE.name}:{row.line}: the Python cell names nothing in backticks"
    for reference in row.references:
        try:
            check_reference(reference)
        except (AssertionError, SyntaxError) as error:
            raise AssertionError(f"{PAGE.name}:{row.line}: `{reference}`: {error}") from error


def _all_references() -> set[str]:
    return {reference for row in ROWS for reference in row.references}


@pytest.mark.parametrize("cls", VALUE_CLASSES, ids=lambda cls: cls.__name__)
def test_every_field_is_listed(cls: type) -> None:
    listed = _all_references()
    missing = [f"{cls.__name__}.{field.name}" for field in attrs.fields(cls) if f"{cls.__name__}.{field.name}" not in listed]
    assert not missing, f"{PAGE.name} has no row for {missing}"


@pytest.mark.parametrize("enum_cls", ENUMS, ids=lambda cls: cls.__name__)
def test_every_enum_member_is_listed(enum_cls: type[enum.Enum]) -> None:
    listed = _all_references()
    missing = [f"{enum_cls.__name__}.{name}" for name in enum_cls.__members__ if f"{enum_cls.__name__}.{name}" not in listed]
    assert not missing, f"{PAGE.name} has no row for {missing}"


@pytest.mark.parametrize("cls", CONSTANT_HOLDERS, ids=lambda cls: cls.__name__)
def test_every_metadata_key_constant_is_listed(cls: type) -> None:
    listed = _all_references()
    constants = [name for name in dir(cls) if re.fullmatch(r"[A-Z][A-Z_]+", name)]
    assert constants
    missing = [f"{cls.__name__}.{name}" for name in constants if f"{cls.__name__}.{name}" not in listed]
    assert not missing, f"{PAGE.name} has no row for {missing}"


@pytest.mark.parametrize(
    ("reference", "problem"),
    [
        ("Msg.getTextContent()", "has no attribute"),
        ("NoSuchClass", "not a public name"),
        ("ChatUsage(input_tokens, total=1)", "takes no keyword"),
        ("ChatUsage.builder().inputTokens(n)", "has no attribute"),
        ("ToolCallState.PENDING.no_such", "has no attribute"),
    ],
)
def test_the_checker_rejects_what_does_not_exist(reference: str, problem: str) -> None:
    with pytest.raises(AssertionError, match=problem):
        check_reference(reference)
