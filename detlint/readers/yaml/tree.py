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
from dataclasses import dataclass, field

from detlint.base.span import Span

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
    string), its source text as written, and whether it was quoted. ``block``: written
    as a block scalar (``|`` or ``>``, any chomping or indentation indicator), whose
    text starts on the line after the indicator; a reader cannot tell that from the
    value when chomping (``>-``) leaves a one-line text with no line break."""

    value: ScalarValue
    text: str
    quoted: bool
    position: Position
    block: bool = False


@dataclass(eq=False, slots=True)
class YSeq:
    items: tuple[YNode, ...]
    position: Position

    def __iter__(self) -> Iterator[YNode]:
        return iter(self.items)


@dataclass(eq=False, slots=True)
class YMap:
    """A mapping; keys are scalars (a non-scalar key is kept with ``key.text`` as written).

    A key is looked up by its value or its text. Readers look up several keys of the
    same mapping (a step's ``label``, ``command``, ``retry``...), so the first lookup
    indexes the keys by name and the later ones do not scan the items again (which
    never change once composed).
    """

    items: tuple[tuple[YScalar, YNode], ...]
    position: Position
    _index: dict[str, tuple[YScalar, YNode]] | None = field(default=None, init=False, repr=False)

    def _item(self, key: str) -> tuple[YScalar, YNode] | None:
        """The last item whose key's value or text is ``key``."""
        if key.__class__ is not str:  # only a string's equality is a dict lookup
            found = None
            for item in self.items:
                if item[0].value == key or item[0].text == key:
                    found = item
            return found
        index = self._index
        if index is None:
            index = self._index = {}
            for item in self.items:  # a later item replaces an earlier one
                item_key = item[0]
                index[item_key.text] = item
                if item_key.value.__class__ is str:
                    index[item_key.value] = item
        return index.get(key)

    def get(self, key: str) -> YNode | None:
        """The value of ``key`` (the last one, when the key is repeated)."""
        index = self._index
        item = index.get(key) if index is not None and key.__class__ is str else self._item(key)
        return None if item is None else item[1]

    def key(self, key: str) -> YScalar | None:
        """The key node itself (for a finding's position), last occurrence."""
        index = self._index
        item = index.get(key) if index is not None and key.__class__ is str else self._item(key)
        return None if item is None else item[0]

    def keys(self) -> list[str]:
        return [str(k.value) if k.value is not None else k.text for k, _ in self.items]

    def __contains__(self, key: str) -> bool:
        index = self._index
        if index is not None and key.__class__ is str:
            return key in index
        return self._item(key) is not None


YNode = YScalar | YSeq | YMap


def merge_items(
    pairs: list[tuple[YScalar, YNode]], merges: list[tuple[int, YScalar, YNode]]
) -> tuple[tuple[tuple[YScalar, YNode], ...], list[YScalar]]:
    """A mapping's items with its merge keys applied, and the ``<<`` keys kept as keys.

    ``pairs`` are the other items; each merge is (how many of them come before it,
    its ``<<`` key, its value). Merged items go where ``<<`` was; explicit keys win
    over merged ones, and a mapping earlier in a ``<<: [...]`` list wins over a later
    one. A ``<<`` whose value is not a mapping or a list of mappings stays a key.
    """
    blocked = {_key_id(key) for key, _ in pairs}
    merged: list[tuple[YScalar, YNode]] = []
    rejected: list[YScalar] = []
    done = 0
    for at, key, value in merges:
        merged.extend(pairs[done:at])
        done = at
        sources = [value] if isinstance(value, YMap) else getattr(value, "items", None)
        if not sources or not all(isinstance(source, YMap) for source in sources):
            rejected.append(key)
            merged.append((key, value))
            continue
        for source in sources:
            taken = set()
            for item in source.items:
                item_id = _key_id(item[0])
                if item_id not in blocked:
                    merged.append(item)
                    taken.add(item_id)
            blocked |= taken
    merged.extend(pairs[done:])
    return tuple(merged), rejected


def _key_id(key: YScalar) -> tuple[type, object, str]:
    """What makes two keys the same key: their value and its type (``1`` is not ``"1"``)."""
    return (key.value.__class__, key.value, key.text if key.value is None else "")


def scalar_value(node: YNode | None) -> ScalarValue:
    """A scalar's value, or None for anything else (absent, a list, a mapping)."""
    return node.value if isinstance(node, YScalar) else None


def text_of(node: YNode | None) -> str | None:
    """A scalar's value as a string (numbers and booleans as written), None otherwise."""
    if not isinstance(node, YScalar) or node.value is None:
        return None
    return node.value if isinstance(node.value, str) else node.text
