#!/bin/sh
# Compile AgentScope Java's message and event classes with tools/java_roundtrip/Harness.java, then
# run roundtrip.py against them. See README.md.
#
#   tools/java_roundtrip/run.sh [check|fixture] [roundtrip.py options]
#
#   check    (default) Python's documents through Java and back, Java's through Python and back
#   fixture  rewrite tests/data/agentscope-java/built_by_java.jsonl from the Java classes
#
# Environment:
#   AGENTSCOPE_JAVA      an agentscope-java checkout, or its git directory (a bare mirror works)
#                        default: ../agentscope-java next to this repository
#   AGENTSCOPE_JAVA_REF  the commit to compile when AGENTSCOPE_JAVA is a git directory (default HEAD)
#   JACKSON_JARS         a directory holding the jars listed in README.md
#                        default: tools/java_roundtrip/lib
#   PYTHON               the interpreter with agentscope_py and hypothesis installed
#                        default: .venv/bin/python of this repository, else python3
#   BUILD_DIR            where sources are extracted and compiled (default tools/java_roundtrip/build)
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
AGENTSCOPE_JAVA=${AGENTSCOPE_JAVA:-$REPO/../agentscope-java}
AGENTSCOPE_JAVA_REF=${AGENTSCOPE_JAVA_REF:-HEAD}
JACKSON_JARS=${JACKSON_JARS:-$HERE/lib}
BUILD_DIR=${BUILD_DIR:-$HERE/build}
if [ -z "${PYTHON:-}" ]; then
  if [ -x "$REPO/.venv/bin/python" ]; then PYTHON=$REPO/.venv/bin/python; else PYTHON=python3; fi
fi

fail() { echo "run.sh: $*" >&2; exit 2; }

command -v javac >/dev/null 2>&1 && command -v java >/dev/null 2>&1 \
  || fail "java and javac (JDK 17 or newer) must be on PATH"

# The jars: each pattern must match exactly one file (two versions of one jar is a mistake).
[ -d "$JACKSON_JARS" ] || fail "JACKSON_JARS=$JACKSON_JARS is not a directory; see README.md for the jars it needs"
for jar in jackson-databind jackson-core jackson-annotations jackson-datatype-jsr310 slf4j-api; do
  found=$(find "$JACKSON_JARS" -maxdepth 1 -name "$jar-[0-9]*.jar" | wc -l)
  [ "$found" -eq 1 ] || fail "JACKSON_JARS=$JACKSON_JARS must hold exactly one $jar-<version>.jar (found $found)"
done

# The Java sources: from a checkout as they are, from a git directory extracted at the ref.
CORE=agentscope-core/src/main/java
rm -rf "$BUILD_DIR/src" "$BUILD_DIR/classes"
mkdir -p "$BUILD_DIR/src" "$BUILD_DIR/classes"
if [ -d "$AGENTSCOPE_JAVA/$CORE" ]; then
  SOURCES=$AGENTSCOPE_JAVA/$CORE
  COMMIT=$(git -C "$AGENTSCOPE_JAVA" rev-parse HEAD 2>/dev/null || echo "unknown commit (not a git checkout)")
elif git --git-dir="$AGENTSCOPE_JAVA" rev-parse --verify --quiet "$AGENTSCOPE_JAVA_REF^{commit}" >/dev/null 2>&1; then
  COMMIT=$(git --git-dir="$AGENTSCOPE_JAVA" rev-parse "$AGENTSCOPE_JAVA_REF^{commit}")
  git --git-dir="$AGENTSCOPE_JAVA" archive "$COMMIT" "$CORE" | tar -x -C "$BUILD_DIR/src" \
    || fail "$AGENTSCOPE_JAVA at $COMMIT has no $CORE"
  SOURCES=$BUILD_DIR/src/$CORE
else
  fail "AGENTSCOPE_JAVA=$AGENTSCOPE_JAVA is neither a checkout holding $CORE nor a git directory with commit $AGENTSCOPE_JAVA_REF"
fi

# Only what the message and event classes need: the whole module pulls in model SDKs.
P=$SOURCES/io/agentscope/core
{
  ls "$P"/message/*.java
  ls "$P"/event/*.java | grep -v /AgentEventEmitter.java  # needs Reactor, and writes no JSON
  for class in model/ChatUsage state/State util/JsonUtils util/JsonCodec util/JacksonJsonCodec util/JsonException \
               util/TypeUtils tool/ToolSuspendException permission/PermissionRule permission/PermissionBehavior; do
    [ -f "$P/$class.java" ] || fail "$P/$class.java is missing: the layout of agentscope-core changed, update run.sh"
    echo "$P/$class.java"
  done
} > "$BUILD_DIR/sources.txt"
CLASSPATH_JARS="$JACKSON_JARS/*"
echo "compiling AgentScope Java $COMMIT ($(wc -l < "$BUILD_DIR/sources.txt") files) with $(ls "$JACKSON_JARS" | tr '\n' ' ')"
javac -nowarn -encoding UTF-8 -d "$BUILD_DIR/classes" -cp "$CLASSPATH_JARS" @"$BUILD_DIR/sources.txt"
javac -nowarn -encoding UTF-8 -d "$BUILD_DIR/classes" -cp "$CLASSPATH_JARS:$BUILD_DIR/classes" "$HERE/Harness.java"

COMMAND=${1:-check}
[ $# -gt 0 ] && shift
cd "$REPO"
case "$COMMAND" in
  check) exec "$PYTHON" "$HERE/roundtrip.py" check --classpath "$CLASSPATH_JARS:$BUILD_DIR/classes" \
           --results "$BUILD_DIR/unexplained.jsonl" "$@" ;;
  fixture) exec "$PYTHON" "$HERE/roundtrip.py" fixture --classpath "$CLASSPATH_JARS:$BUILD_DIR/classes" "$@" ;;
  *) fail "unknown command $COMMAND (check or fixture)" ;;
esac
