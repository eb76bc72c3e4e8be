"""Finding nodes of given types under a node, without libcst's matchers.

``libcst.matchers`` costs about 0.2 s to import, more than parsing a test file;
the pass only ever asks "every node of these types below here", which a plain
stack walk over ``children`` answers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TypeVar

import libcst as cst

NodeT = TypeVar("NodeT", bound=cst.CSTNode)


_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}
# Fields that hold only whitespace, comments and punctuation: never searched.
_LAYOUT_FIELDS = frozenset(
    {
        "leading_lines",
        "lines_after_decorators",
        "lpar",
        "rpar",
        "comma",
        "semicolon",
        "trailing_whitespace",
        "header",
        "footer",
        "newline",
        "equal",
        "colon",
        "dot",
        "star",
        "operator",
    }
)


def _children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """A node's direct children, read from its dataclass fields.

    ``CSTNode.children`` builds the list with a visitor, several times slower;
    the fields give the same nodes in declaration order, close to source order.
    """
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(
            item.name
            for item in dataclasses.fields(node)
            if not item.name.startswith("whitespace") and item.name not in _LAYOUT_FIELDS
        )
    for name in names:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, list | tuple):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield item


def find_all(root: cst.CSTNode, kinds: type[NodeT] | tuple[type[NodeT], ...]) -> Iterator[NodeT]:
    """Every node below ``root`` (and ``root`` itself) of one of ``kinds``, in source order."""
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, kinds):
            yield node
        stack.extend(reversed(list(_children(node))))
