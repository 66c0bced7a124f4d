"""The static guarantees: mypy accepts tests/typing/pass, rejects every marked line of
tests/typing/fail, and finds nothing wrong in the package and its tests.

mypy runs once per session (it is slow) over all of them, with the repository's
mypy.ini and ``--strict``, exactly as CI checks the package.  A line of a fail
file that must be rejected ends with ``# E: <error-code>`` (several codes are
separated by commas); every other line must pass.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import runpy
import typing
from collections import defaultdict
from pathlib import Path

import attrs
import pytest
from mypy_runs import run_mypy

ROOT = Path(__file__).resolve().parent.parent
TYPING = ROOT / "tests" / "typing"
PASS_FILES = sorted((TYPING / "pass").glob("*.py"))
FAIL_FILES = sorted((TYPING / "fail").glob("*.py"))

# "# E: arg-type" marks a line mypy must refuse with that code; a quoted fragment after the codes
# ("# E: misc \"read-only\"") must be in the message too, where the code alone says little.  After
# arg-type or list-item it is the type refused ("# E: arg-type \"str\""), not any word of the
# message: "str" alone would be found in the type expected ("str | None") of another argument.
_MARKER = re.compile(r"#\s*E:\s*(?P<codes>[a-z-]+(?:\s*,\s*[a-z-]+)*)(?:\s+\"(?P<words>[^\"]+)\")?\s*$")
_REPORT_LINE = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+): (?P<severity>error|note): (?P<message>.*?)(?:  \[(?P<code>[a-z-]+)\])?$"
)


@attrs.frozen
class MypyError:
    path: str  # relative to the repository root, with forward slashes
    line: int
    message: str
    code: str | None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}  [{self.code}]"


@attrs.frozen
class MypyRun:
    # Not in the repr: pytest prints fixtures' reprs on failure, and the assertions say enough.
    errors: tuple[MypyError, ...] = attrs.field(repr=False)
    output: str = attrs.field(repr=False)

    def errors_in(self, path: Path) -> list[MypyError]:
        name = path.relative_to(ROOT).as_posix()
        return [error for error in self.errors if error.path == name]


@pytest.fixture(scope="session")
def mypy_run() -> MypyRun:
    # Explicit file arguments are checked even though mypy.ini excludes tests/typing/fail.
    args = ["--config-file", "mypy.ini", "--strict", "--show-error-codes", "--no-pretty", "--no-color-output",
            "--no-error-summary", "agentscope_py", "tests", *(str(p.relative_to(ROOT)) for p in FAIL_FILES)]
    previous = os.getcwd()
    os.chdir(ROOT)  # mypy reads mypy.ini and reports paths relative to the working directory
    try:
        stdout, stderr, _status = run_mypy(args)
    finally:
        os.chdir(previous)
    assert not stderr, stderr
    errors = []
    for line in stdout.splitlines():
        match = _REPORT_LINE.match(line)
        assert match, f"unexpected mypy output: {line!r}"
        if match["severity"] == "error":
            path = Path(match["path"]).as_posix()
            errors.append(MypyError(path, int(match["line"]), match["message"], match["code"]))
    return MypyRun(tuple(errors), stdout)


def _markers(path: Path) -> dict[int, tuple[set[str], str | None]]:
    """Line number -> the codes mypy must report there, and the words its message must hold."""
    expected: dict[int, tuple[set[str], str | None]] = {}
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = _MARKER.search(text)
        if match:
            expected[number] = ({code.strip() for code in match["codes"].split(",")}, match["words"])
    return expected


def _says(error: MypyError, codes: set[str], words: str) -> bool:
    if error.code in codes & {"arg-type", "list-item"}:
        return f'incompatible type "{words}"' in error.message
    return words in error.message


def test_the_package_and_its_tests_are_clean_under_strict_mypy(mypy_run: MypyRun) -> None:
    fail_dir = (TYPING / "fail").relative_to(ROOT).as_posix() + "/"
    unexpected = [str(error) for error in mypy_run.errors if not error.path.startswith(fail_dir)]
    assert not unexpected, "mypy --strict found:\n" + "\n".join(unexpected)


@pytest.mark.parametrize("path", PASS_FILES, ids=lambda p: p.name)
def test_pass_file_type_checks(path: Path, mypy_run: MypyRun) -> None:
    assert "assert_type(" in path.read_text(encoding="utf-8")
    errors = [str(error) for error in mypy_run.errors_in(path)]
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("path", PASS_FILES, ids=lambda p: p.name)
def test_pass_file_runs(path: Path) -> None:
    # What mypy accepts must also work: the pass files double as runnable examples.
    runpy.run_path(str(path), run_name="typing_example")


@pytest.mark.parametrize("path", FAIL_FILES, ids=lambda p: p.name)
def test_fail_file_errors_exactly_on_the_marked_lines(path: Path, mypy_run: MypyRun) -> None:
    markers = _markers(path)
    assert markers, f"{path.name} marks no line with '# E: <code>'"
    expected = {line: codes for line, (codes, _) in markers.items()}
    found: defaultdict[int, set[str]] = defaultdict(set)
    for error in mypy_run.errors_in(path):
        found[error.line].add(error.code or "<no code>")
    missing = {line: codes - found[line] for line, codes in expected.items() if codes - found[line]}
    unmarked = {line: codes - expected.get(line, set()) for line, codes in found.items()
                if codes - expected.get(line, set())}
    unsaid = {
        line: words
        for line, (codes, words) in markers.items()
        if words is not None
        and not any(_says(error, codes, words) for error in mypy_run.errors_in(path) if error.line == line)
    }
    assert missing == {}, f"{path.name}: these lines should fail with these codes but do not"
    assert unsaid == {}, f"{path.name}: these lines fail, but not saying these words"
    assert unmarked == {}, f"{path.name}: unexpected errors:\n" + "\n".join(
        str(error) for error in mypy_run.errors_in(path) if error.line in unmarked
    )


# -- annotations at run time ------------------------------------------------------------------

_PUBLIC_MODULES = (
    "agentscope_py",
    "agentscope_py.builders",
    "agentscope_py.errors",
    "agentscope_py.event",
    "agentscope_py.interop",
    "agentscope_py.interop.agentflow",
    "agentscope_py.interop.anthropic",
    "agentscope_py.interop.openai",
    "agentscope_py.interop.swarm_kit",
    "agentscope_py.interop.vercel_ai",
    "agentscope_py.schema",
    "agentscope_py.sse",
)


def _public_callables() -> dict[str, object]:
    """Every public function, class and method of the package, by qualified name."""
    found: dict[str, object] = {}
    for module_name in _PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if isinstance(obj, type):
                found[f"{module_name}.{name}"] = obj
                for klass in obj.__mro__:
                    if not klass.__module__.startswith("agentscope_py"):
                        continue
                    for attr, member in vars(klass).items():
                        if attr.startswith("_") and attr not in ("__init__", "__replace__"):
                            continue
                        member = member.fget if isinstance(member, property) else member
                        member = getattr(member, "__func__", member)  # a classmethod's or staticmethod's
                        if inspect.isfunction(member):
                            found[f"{module_name}.{name}.{attr}"] = member
            elif inspect.isfunction(obj):
                found[f"{module_name}.{name}"] = obj
    return found


def test_every_public_annotation_resolves_at_run_time() -> None:
    # Tools that read annotations at run time (typeguard, beartype, sphinx-autodoc-typehints, cattrs)
    # need every name an annotation mentions to be importable where the annotation is.
    callables = _public_callables()
    assert len(callables) > 300  # the walk found the package
    unresolved = {}
    for name, obj in callables.items():
        try:
            typing.get_type_hints(obj)
        except NameError as error:
            unresolved[name] = str(error)
    assert not unresolved
