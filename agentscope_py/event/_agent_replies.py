"""The open agent replies of a stream by source, and which sources' replies they enclose.

A sub-agent's source is the path of agents to it (``"main/researcher"``), and an
open reply encloses the replies of every source below its own: the top-level
agent's (source ``None``) all of them.  Asking that by cutting the source at
each ``/`` and looking each prefix up copies the source once per level, which
a hostile source of a hundred thousand levels makes seconds per event; the
sources of the open replies are also kept as a tree of their levels, walked
once down the source.
"""

from __future__ import annotations

import enum
from typing import Any, Final, Literal

from ._reply_state import Reply

__all__ = ["NOBODY", "AgentReplies"]

# In a node of the tree: this path is the source of an open reply (levels are strings, never None).
_OPEN: Any = None


class _Nobody(enum.Enum):
    NOBODY = "<no open reply>"


#: What ``AgentReplies.encloser`` gives for a source no open reply encloses.
NOBODY: Final = _Nobody.NOBODY


class AgentReplies(dict[str | None, Reply]):
    """Source -> its open ``AgentStartEvent`` reply; set and delete items with ``[]`` and ``del`` only."""

    # Level -> the node below it; a node holding _OPEN is the source of an open reply.  Made with the
    # first sub-agent's reply: an assembler is made per stream, and most streams have none.
    __slots__ = ("_tree",)
    _tree: dict[Any, Any]

    def __setitem__(self, source: str | None, reply: Reply) -> None:
        if source is not None and source not in self:
            try:
                node = self._tree
            except AttributeError:
                node = self._tree = {}
            for level in source.split("/"):
                node = node.setdefault(level, {})
            node[_OPEN] = True
        dict.__setitem__(self, source, reply)  # by name: cheaper than super() on the hot path

    def __delitem__(self, source: str | None) -> None:
        dict.__delitem__(self, source)
        if source is None:
            return
        levels = source.split("/")
        path = [self._tree]
        for level in levels:
            path.append(path[-1][level])
        del path[-1][_OPEN]
        # Prune the nodes left empty, from the bottom: the tree holds the open sources only.
        for parent, level in zip(reversed(path[:-1]), reversed(levels)):
            if parent[level]:
                break
            del parent[level]

    def encloses(self, source: str | None) -> bool:
        """Whether an open reply encloses the replies of ``source``: the top-level agent's encloses
        every sub-agent's, ``"main"``'s those of ``"main/researcher"`` (not those of ``"main"``)."""
        return self.encloser(source) is not NOBODY

    def encloser(self, source: str | None) -> str | None | Literal[_Nobody.NOBODY]:
        """The source of the outermost open reply that encloses the replies of ``source`` (see
        :meth:`encloses`), or ``NOBODY``."""
        if source is None or not self:
            return NOBODY
        if None in self:
            return None
        levels = source.split("/")
        node = self._tree
        for depth, level in enumerate(levels[:-1]):
            below: dict[Any, Any] | None = node.get(level)
            if below is None:
                return NOBODY
            node = below
            # A source above this one, but not "" (a source starting with "/" is below no other).
            if _OPEN in node and (depth or level):
                return "/".join(levels[: depth + 1])
        return NOBODY
