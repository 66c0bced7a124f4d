"""Put agentscope_py's JSON through the real AgentScope Java classes, and Java's back through Python.

Run it through ``run.sh``, which compiles the Java side; see README.md.

``check``: Python writes a corpus (the shared vectors, hand-picked edge values,
hypothesis-generated values of every class, and event streams), Java reads each
document and writes it back, Python reads that. Then documents built by Java
code go through Python and back to Java. Every difference is either one of the
documented Java-side differences (``DOCUMENTED``) or reported as unexplained,
which makes the run fail.

``fixture``: writes the documents Java builds to
tests/data/agentscope-java/built_by_java.jsonl, the fixture of
tests/test_wire_java_built.py.

The corpus uses the test suite's hypothesis strategies, imported from
tests/strategies.py and tests/event_strategies.py.
"""

from __future__ import annotations

import argparse
import base64
import collections
import json
import math
import re
import struct
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentscope_py import AssistantMessage, DecodeError, DecodeLimits, _json
from agentscope_py import event as ev

from corpus import KINDS, VECTORS, Item, edge_values, generated, golden_vectors, streams

FIXTURE = VECTORS / "built_by_java.jsonl"
BACKENDS = ["json", "orjson", "msgspec"]

#: Java nests deeper than Python's default limit allows in a few documents (50 nested tool results).
DEEP = DecodeLimits(max_depth=400)

#: The differences that are known and documented (docs/wire-format.md), by the name the summary uses.
DOCUMENTED = {
    "fps_float32": "VideoBlock.fps is a Java Float: Java writes it back rounded to 32 bits",
    "total_tokens_wrapped": "ChatUsage.totalTokens is a Java int sum: it wraps past 2^31-1",
    "split_surrogate_pair": "an escaped high+low surrogate pair Python held as two code points reads back as one character",
    "bytes_reader_refuses_key_surrogate": "Jackson's UTF-8 byte reader refuses an escaped surrogate in an object key",
    "tojson_string_lone_surrogate": "Java's toJson() String holds a lone surrogate raw: getBytes(UTF_8) would turn it into '?'",
    "java_wrote_nan_as_string": "Java writes a NaN or infinite double/float as a string, which Python refuses",
    "plain_mapper_refuses_total_tokens": "a bare new ObjectMapper() refuses ChatUsage.totalTokens (Java's own output too)",
}


# ---------------------------------------------------------------------------------------------- Java


class Java:
    """The compiled Harness (tools/java_roundtrip/Harness.java) on a class path."""

    def __init__(self, classpath: str) -> None:
        self.classpath = classpath

    def _run(self, args: list[str], lines: list[str]) -> list[dict[str, Any]]:
        # A deep stack: Jackson recurses once per nesting level of the document.
        command = ["java", "-Xss64m", "-cp", self.classpath, "Harness", *args]
        stdin = "".join(line + "\n" for line in lines).encode("ascii")  # the lines are ASCII JSON
        done = subprocess.run(command, input=stdin, capture_output=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr.decode(errors='replace')}")
        return [json.loads(line) for line in done.stdout.decode("ascii").splitlines() if line.strip()]

    def round_trip(self, documents: Iterable[tuple[str, str, str]], *, plain_mapper: bool = False) -> dict[str, dict[str, Any]]:
        """Java reads and writes back each ``(kind, id, json text)``; the results by id."""
        lines = [json.dumps({"kind": kind, "id": id_, "json": text}) for kind, id_, text in documents]
        args = ["roundtrip", "--plain-mapper"] if plain_mapper else ["roundtrip"]
        return {result["id"]: result for result in self._run(args, lines)}

    def build(self) -> list[dict[str, Any]]:
        """The documents Java builds with its constructors and builders."""
        return self._run(["build"], [])


# ---------------------------------------------------------------------------------------------- comparison


@dataclass(frozen=True)
class Difference:
    path: str
    python: Any
    java: Any


def differences(python: Any, java: Any, path: str = "$") -> list[Difference]:
    """Where two parsed JSON values differ; strict about int, float and bool, and the sign of zero."""
    if isinstance(python, dict) and isinstance(java, dict):
        return [
            found
            for key in python.keys() | java.keys()
            for found in (
                differences(python[key], java[key], f"{path}.{key}")
                if key in python and key in java
                else [Difference(f"{path}.{key}", python.get(key, "<absent>"), java.get(key, "<absent>"))]
            )
        ]
    if isinstance(python, list) and isinstance(java, list):
        if len(python) != len(java):
            return [Difference(path, python, java)]
        return [found for n, (p, j) in enumerate(zip(python, java)) for found in differences(p, j, f"{path}[{n}]")]
    same_float = not isinstance(python, float) or math.copysign(1, python) == math.copysign(1, java)
    if type(python) is not type(java) or python != java or not same_float:
        return [Difference(path, python, java)]
    return []


def _float32(value: Any) -> float | None:
    try:
        return float(struct.unpack("<f", struct.pack("<f", value))[0])
    except (OverflowError, struct.error):
        return None


def _int32(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31


def explain(found: Difference) -> str | None:
    """The documented difference ``found`` is, if it is one."""
    if found.path.endswith(".fps") and isinstance(found.java, float) and _float32(found.python) == _float32(found.java):
        return "fps_float32"
    if found.path.endswith(".totalTokens") and isinstance(found.python, int) and found.java == _int32(found.python):
        return "total_tokens_wrapped"
    return None


SPLIT_PAIR = re.compile(r"\\ud[89ab][0-9a-f]{2}\\ud[c-f][0-9a-f]{2}", re.IGNORECASE)
# A JSON string holding an escaped surrogate, followed by a colon: an object key.
KEY_WITH_ESCAPED_SURROGATE = re.compile(r'"(?:[^"\\]|\\.)*?\\ud[89a-f][0-9a-f]{2}(?:[^"\\]|\\.)*"\s*:', re.IGNORECASE)


def decode(kind: str, text: str | bytes) -> tuple[Any, bool]:
    """Python reads a document Java wrote; and whether it took more than the default depth limit."""
    try:
        return KINDS[kind].from_json(text), False
    except DecodeError as error:
        if "deeper than" not in str(error):
            raise
        return KINDS[kind].from_json(text, limits=DEEP), True


@dataclass
class Tally:
    counts: collections.Counter[str] = field(default_factory=collections.Counter)
    problems: list[dict[str, Any]] = field(default_factory=list)

    def unexplained(self, what: str, **details: Any) -> None:
        self.counts["UNEXPLAINED " + what] += 1
        self.problems.append({"what": what, **{key: str(value)[:3000] for key, value in details.items()}})


def check_python_documents(java: Java, items: list[Item], replies: dict[str, AssistantMessage]) -> dict[str, Tally]:
    """Python writes, Java reads and writes back, Python reads: per 'group:kind'."""
    tallies: dict[str, Tally] = collections.defaultdict(Tally)
    texts = [item.value.to_json() for item in items]
    results = java.round_trip((item.kind, item.id, text) for item, text in zip(items, texts))
    streamed: dict[str, list[Any]] = collections.defaultdict(list)
    for item, text in zip(items, texts):
        tally = tallies[f"{item.group}:{item.kind}"]
        tally.counts["documents"] += 1
        result = results[item.id]
        if "error" in result:
            tally.unexplained("java_cannot_read", id=item.id, python=text, error=result["error"])
            continue
        try:
            back, deep = decode(item.kind, result["json"])
        except DecodeError as error:
            tally.unexplained("python_cannot_read_java", id=item.id, java=result["json"], error=error)
            continue
        tally.counts["needed a larger max_depth"] += deep
        if item.stream is not None:
            streamed[item.stream].append(back)
        if result["java_class"].rsplit(".", 1)[-1] != type(back).__name__:
            tally.unexplained("class_differs", id=item.id, java=result["java_class"], python=type(back).__name__)
        found = differences(json.loads(text), json.loads(result["json"]))
        reasons = {explain(one) for one in found}
        if None in reasons:
            tally.unexplained("json_differs", id=item.id, python=text, java=result["json"], differences=found)
        notes = {reason for reason in reasons if reason is not None}
        if back != item.value:
            if SPLIT_PAIR.search(text):
                notes.add("split_surrogate_pair")
            elif not notes:  # the value changed and the JSON did not say why
                tally.unexplained("value_differs", id=item.id, python=repr(item.value), back=repr(back))
        if "bytes_read_error" in result:
            if KEY_WITH_ESCAPED_SURROGATE.search(text):
                notes.add("bytes_reader_refuses_key_surrogate")
            else:
                tally.unexplained("java_bytes_read_error", id=item.id, python=text, error=result["bytes_read_error"])
        if result.get("string_not_utf8"):
            notes.add("tojson_string_lone_surrogate")
        if "bytes_json" in result:  # writeValueAsBytes escapes differently: the value must be the same
            from_bytes, _ = decode(item.kind, base64.b64decode(result["bytes_json"]))
            if from_bytes != back:
                tally.unexplained("java_bytes_differ", id=item.id, bytes=result["bytes_json"], back=repr(back))
        for note in notes:
            tally.counts["documented: " + note] += 1
        if not found and back == item.value:
            tally.counts["same value"] += 1

    assembled = tallies["stream:assembled"]
    for stream, events in streamed.items():
        assembled.counts["streams"] += 1
        if list(ev.assemble(events)) == [replies[stream]]:
            assembled.counts["reassembled to the reply"] += 1
        else:
            assembled.unexplained("stream_not_reassembled", id=stream)

    # Java code that reads with a bare ObjectMapper rather than the framework's codec.
    plain = tallies["plain ObjectMapper"]
    documents = ((item.kind, item.id, text) for item, text in zip(items, texts))
    for id_, result in java.round_trip(documents, plain_mapper=True).items():
        plain.counts["documents"] += 1
        if "error" not in result:
            plain.counts["read"] += 1
        elif 'Unrecognized field "totalTokens"' in result["error"]:
            plain.counts["documented: plain_mapper_refuses_total_tokens"] += 1
        else:
            plain.unexplained("plain_mapper_cannot_read", id=id_, error=result["error"])
    return tallies


def check_java_documents(java: Java, built: list[dict[str, Any]]) -> Tally:
    """Java builds, Python reads and writes back, Java reads and writes again: the same value as Java's first."""
    tally = Tally()
    rewritten: list[tuple[dict[str, Any], str]] = []
    for case in built:
        tally.counts["documents"] += 1
        if "error" in case:
            tally.unexplained("java_cannot_write", id=case["case"], error=case["error"])
            continue
        try:
            value, deep = decode(case["kind"], case["json_text"])
        except DecodeError as error:
            if re.fullmatch(r"(time|fps): expected a number, got string", str(error)):
                tally.counts["documented: java_wrote_nan_as_string"] += 1
            else:
                tally.unexplained("python_cannot_read_java", id=case["case"], error=error)
            continue
        tally.counts["needed a larger max_depth"] += deep
        java_name, python_name = case["java_class"].rsplit(".", 1)[-1], type(value).__name__
        if java_name != python_name and not (java_name == "Msg" and value.role is not None):  # the role picks the class
            tally.unexplained("class_differs", id=case["case"], java=java_name, python=python_name)
        text = value.to_json()
        found = differences(json.loads(text), json.loads(case["json_text"]))
        reasons = {explain(one) for one in found}
        if None in reasons:
            tally.unexplained("python_rewrite_differs", id=case["case"], differences=found)
        for reason in reasons - {None}:
            tally.counts[f"documented: {reason}"] += 1
        rewritten.append((case, text))
    again = java.round_trip((case["kind"], case["case"], text) for case, text in rewritten)
    for case, _ in rewritten:
        result = again[case["case"]]
        if "error" in result:
            tally.unexplained("java_cannot_read_python_rewrite", id=case["case"], error=result["error"])
        elif differences(json.loads(result["json"]), json.loads(case["json_text"])):
            tally.unexplained("java_rewrite_differs", id=case["case"], java=case["json_text"], again=result["json"])
        else:
            tally.counts["back in Java as the same value"] += 1
    return tally


# ---------------------------------------------------------------------------------------------- commands


def fixture_lines(built: list[dict[str, Any]]) -> list[str]:
    """The fixture's lines, in the format of messages.jsonl: UTF-8, compact, lone surrogates escaped."""
    lines = []
    for case in built:
        if "error" in case:
            raise SystemExit(f"Java could not write {case['case']}: {case['error']}")
        line = json.dumps(
            {"case": case["case"], "kind": case["kind"], "java_class": case["java_class"],
             "json": json.loads(case["json_text"]), "json_text": case["json_text"]},
            ensure_ascii=False, separators=(",", ":"),
        )
        # A lone surrogate has no UTF-8 form: write it as the \u escape JSON reads back as it.
        lines.append(re.sub("[\ud800-\udfff]", lambda match: f"\\u{ord(match.group()):04x}", line))
    return lines


def print_summary(title: str, tallies: dict[str, Tally]) -> int:
    """One line per group of documents; returns the number of unexplained differences."""
    print(title)
    print(f"  {'documents (group:kind)':28} {'count':>7} {'same':>7}  documented differences and notes")
    unexplained = 0
    for name, tally in sorted(tallies.items()):
        counts = tally.counts
        same = counts["same value"] or counts["back in Java as the same value"] or counts["read"] or counts["reassembled to the reply"]
        total = counts["documents"] or counts["streams"]
        notes = [
            f"{what.removeprefix('documented: ')} {count:,}"
            for what, count in sorted(counts.items())
            if count and what.startswith(("documented", "needed", "UNEXPLAINED"))
        ]
        unexplained += sum(count for what, count in counts.items() if what.startswith("UNEXPLAINED"))
        print(f"  {name:28} {total:7,} {same:7,}  {'; '.join(notes)}")
    return unexplained


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["check", "fixture"])
    parser.add_argument("--classpath", required=True, help="the Jackson jars and the compiled classes (run.sh passes it)")
    parser.add_argument("--scale", type=int, default=1, help="multiplies the number of generated values")
    parser.add_argument("--backends", default=",".join(BACKENDS), help="Python JSON backends to write and read with")
    parser.add_argument("--results", type=Path, help="write every unexplained difference here, as JSON lines")
    parser.add_argument("--fixture", type=Path, default=FIXTURE, help="where `fixture` writes")
    args = parser.parse_args(argv)
    java = Java(args.classpath)

    if args.command == "fixture":
        lines = fixture_lines(java.build())
        args.fixture.write_text("".join(line + "\n" for line in lines), "utf-8")
        print(f"{len(lines)} documents built by Java -> {args.fixture}")
        return 0

    started = time.monotonic()
    stream_items, replies = streams(args.scale)
    items = golden_vectors() + edge_values() + generated(args.scale) + stream_items
    duplicates = [id_ for id_, count in collections.Counter(item.id for item in items).items() if count > 1]
    assert not duplicates, duplicates[:5]
    print(f"corpus: {len(items):,} documents written by Python ({time.monotonic() - started:.0f}s)")
    built = java.build()
    unexplained = 0
    problems: list[dict[str, Any]] = []
    figures: dict[str, dict[str, collections.Counter[str]]] = {}
    for backend in args.backends.split(","):
        with _json.use_backend(backend):
            tallies = dict(check_python_documents(java, items, replies))
            tallies["java-built"] = check_java_documents(java, built)
        figures[backend] = {name: tally.counts for name, tally in tallies.items()}
        problems += [{"backend": backend, **problem} for tally in tallies.values() for problem in tally.problems]
        same_as = next((other for other, seen in figures.items() if other != backend and seen == figures[backend]), None)
        if same_as:  # the backends must agree: say so rather than print the same table again
            print(f"\n[Python JSON backend: {backend}] the same figures as {same_as}")
            unexplained += sum(count for counts in figures[backend].values() for what, count in counts.items()
                               if what.startswith("UNEXPLAINED"))
        else:
            unexplained += print_summary(f"\n[Python JSON backend: {backend}]", tallies)
    print("\ndocumented differences:")
    for name, meaning in DOCUMENTED.items():
        print(f"  {name}: {meaning}")
    if args.results:
        args.results.write_text("".join(json.dumps(problem) + "\n" for problem in problems), "utf-8")
    print(f"\n{unexplained} unexplained difference(s){f' -> {args.results}' if args.results and problems else ''};"
          f" {time.monotonic() - started:.0f}s")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
