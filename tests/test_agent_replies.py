"""``AgentReplies``: which sources the open agent replies enclose, against the definition."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentscope_py.event._agent_replies import AgentReplies

_SOURCES = st.none() | st.lists(st.sampled_from(["", "a", "b", "a/b"]), min_size=1, max_size=4).map("/".join)


def _encloses(open_sources: set[str | None], source: str | None) -> bool:
    """The definition: an open source that is ``source`` cut at one of its ``/`` (not before the
    first character), or the top-level agent's, which encloses every sub-agent."""
    if source is None or not open_sources:
        return False
    if None in open_sources:
        return True
    return any(source[:cut] in open_sources for cut in range(1, len(source)) if source[cut] == "/")


@given(st.lists(st.tuples(st.booleans(), _SOURCES), max_size=30), st.lists(_SOURCES, min_size=1, max_size=10))
def test_encloses_what_the_definition_says_as_replies_open_and_close(steps: list[tuple[bool, str | None]], asked: list[str | None]) -> None:
    replies = AgentReplies()
    open_sources: set[str | None] = set()
    reply: Any = object()  # the tree does not look at the replies
    for opens, source in steps:
        if opens:
            replies[source] = reply
            open_sources.add(source)
        elif source in replies:
            del replies[source]
            open_sources.discard(source)
        assert set(replies) == open_sources
        for candidate in [*asked, source]:
            assert replies.encloses(candidate) == _encloses(open_sources, candidate), (open_sources, candidate)
    for source in list(replies):
        del replies[source]
    assert replies._tree == {}  # pruned as the replies closed: it holds the open sources only


def test_a_source_of_a_hundred_thousand_levels_is_placed_below_the_open_replies_above_it() -> None:
    # Cut at each "/" and looked up, it was copied once per level: seconds for one event.  The tree
    # is walked level by level, and stops where no open source goes on.
    replies = AgentReplies()
    replies["x"] = object()  # type: ignore[assignment]
    deep = "x" + "/a" * 100_000
    assert replies.encloses(deep)
    assert not replies.encloses("y" + "/a" * 100_000)
    replies["y/a/a"] = object()  # type: ignore[assignment]
    assert replies.encloses("y" + "/a" * 100_000) and not replies.encloses("y/a/a") and not replies.encloses("y/a")
