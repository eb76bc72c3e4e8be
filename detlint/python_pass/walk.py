"""Finding nodes of given types under a node, without libcst's matchers.

``libcst.matchers`` costs about 0.2 s to import, more than parsing a test file;
the pass only ever asks "every node of these types below here", which a plain
stack walk over ``children`` answers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeVar

import libcst as cst

NodeT = TypeVar("NodeT", bound=cst.CSTNode)


def find_all(root: cst.CSTNode, kinds: type[NodeT] | tuple[type[NodeT], ...]) -> Iterator[NodeT]:
    """Every node below ``root`` (and ``root`` itself) of one of ``kinds``, in source order."""
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, kinds):
            yield node
        stack.extend(reversed(node.children))
