"""The YAML a CI reader sees: plain nodes with exact positions.

Pipeline readers must point findings at the key that sets a knob, so every
node keeps its line and column. They must also be cheap to build for hundreds
of pipeline files, so the tree is a handful of small classes made from composed
YAML nodes, not ruamel.yaml's round-trip objects (which cost several times more
to build and are needed only by a fix that rewrites a file). They are slotted
and not frozen: a frozen dataclass pays a call per field to set it, and a large
CI setup builds hundreds of thousands of nodes. Nothing changes a node once the
composer has built it; readers turn what they need into frozen facts.

Aliases are expanded into the tree (the same node object appears where the
alias is used) and merge keys (``<<:``) are applied, so readers never see
either; mapping keys keep source order and a duplicate key keeps its last
value, as the CI systems' own loaders do.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from detlint.span import Span

ScalarValue = str | int | float | bool | None


@dataclass(eq=False, slots=True)
class Position:
    """Where a node starts and ends: 1-based lines and columns, exclusive end column."""

    line: int
    column: int
    end_line: int
    end_column: int

    def span(self, path: str) -> Span:
        return Span(path, self.line, self.column, self.end_line, self.end_column)


@dataclass(eq=False, slots=True)
class YScalar:
    """A scalar: its YAML 1.2 core-schema value (``true`` is True, ``"true"`` the
    string), its source text as written, and whether it was quoted."""

    value: ScalarValue
    text: str
    quoted: bool
    position: Position


@dataclass(eq=False, slots=True)
class YSeq:
    items: tuple[YNode, ...]
    position: Position

    def __iter__(self) -> Iterator[YNode]:
        return iter(self.items)


@dataclass(eq=False, slots=True)
class YMap:
    """A mapping; keys are scalars (a non-scalar key is kept with ``key.text`` as written)."""

    items: tuple[tuple[YScalar, YNode], ...]
    position: Position

    def get(self, key: str) -> YNode | None:
        """The value of ``key`` (the last one, when the key is repeated)."""
        found: YNode | None = None
        for item_key, value in self.items:
            if item_key.value == key or item_key.text == key:
                found = value
        return found

    def key(self, key: str) -> YScalar | None:
        """The key node itself (for a finding's position), last occurrence."""
        found: YScalar | None = None
        for item_key, _ in self.items:
            if item_key.value == key or item_key.text == key:
                found = item_key
        return found

    def keys(self) -> list[str]:
        return [str(k.value) if k.value is not None else k.text for k, _ in self.items]

    def __contains__(self, key: str) -> bool:
        return self.key(key) is not None


YNode = YScalar | YSeq | YMap


def scalar_value(node: YNode | None) -> ScalarValue:
    """A scalar's value, or None for anything else (absent, a list, a mapping)."""
    return node.value if isinstance(node, YScalar) else None


def text_of(node: YNode | None) -> str | None:
    """A scalar's value as a string (numbers and booleans as written), None otherwise."""
    if not isinstance(node, YScalar) or node.value is None:
        return None
    return node.value if isinstance(node.value, str) else node.text
