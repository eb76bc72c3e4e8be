"""Where a YAML key, its value or a scalar is written, from ruamel's composed nodes.

A fix edits the file's text by position, never by dumping a document again
(a round-trip dump loses comments and reflows lines), so it needs the exact
character range of each node. ruamel's composer gives every node a start and
end mark counted in characters of the text it was given, line ends included;
this module turns those marks into the ranges an edit needs and records, for
each node, the path to its value in the loaded data, which the check after the
edit compares.
"""

from __future__ import annotations

import contextlib
import functools
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

from ruamel.yaml import YAML
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from detlint.fixes.edits import Declined
from detlint.fixes.source_text import SourceText

MERGE_TAG = "tag:yaml.org,2002:merge"
_ALIAS = re.compile(r"\*[^\s,\[\]{}]+")
_WHITESPACE = " \t\r\n"

PathItem = object
Path = tuple[PathItem, ...]


@dataclass(frozen=True)
class Pair:
    """A key and its value in a mapping; ``path`` leads to the mapping in the loaded data."""

    mapping: MappingNode
    index: int
    key: Node
    value: Node
    path: Path
    key_item: PathItem | None  # the key as loaded, ``None`` when it is not a plain scalar


@dataclass(frozen=True)
class Scalar:
    """A scalar node and the path to its value (``None`` for a key, which has none)."""

    node: ScalarNode
    path: Path | None
    pair: Pair | None  # the pair the scalar is the key or the value of


@dataclass(frozen=True)
class Document:
    """A YAML file's composed documents, with every pair and scalar reached first-hand.

    A node reached again through an alias is skipped: its marks point at the
    anchor, and an edit there changes every place the alias repeats it, which
    the check after the edit refuses.
    """

    text: str
    roots: tuple[Node, ...]
    pairs: tuple[Pair, ...]
    scalars: tuple[Scalar, ...]


def _loader() -> YAML:
    return YAML(typ="safe", pure=True)


@contextlib.contextmanager
def quiet_yaml() -> Iterator[None]:
    """ruamel's warnings (a reused anchor name) kept off standard error: the pipeline
    was read already, and a fix's check says what it declines in its own words."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@functools.lru_cache(maxsize=8)
def compose(text: str) -> Document:
    """The composed documents of ``text``; ``Declined`` when it is not plain YAML.

    Kept for the last few texts: a pipeline with many fixes (tpu-inference's 88
    soft fails in 40 files) is composed once, not once per fix. Read only."""
    yaml = _loader()
    try:
        with quiet_yaml():
            roots = tuple(root for root in yaml.compose_all(text) if root is not None)
    except Exception as error:  # ruamel raises many kinds for text it cannot read
        raise Declined(
            f"the file does not parse as YAML (a template?): {_first_line(error)}"
        ) from None
    pairs: list[Pair] = []
    scalars: list[Scalar] = []
    seen: set[int] = set()

    def key_item(node: Node) -> PathItem | None:
        if not isinstance(node, ScalarNode):
            return None
        try:
            item: PathItem = yaml.constructor.construct_object(node, deep=True)
        except Exception:  # an unknown tag: no path through this key
            return None
        return item

    def walk(node: Node, path: Path, pair: Pair | None) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            scalars.append(Scalar(node, path, pair))
        elif isinstance(node, SequenceNode):
            for index, item in enumerate(node.value):
                walk(item, (*path, index), None)
        elif isinstance(node, MappingNode):
            for index, (key, value) in enumerate(node.value):
                if str(key.tag) == MERGE_TAG:
                    continue
                item = key_item(key)
                entry = Pair(node, index, key, value, path, item)
                pairs.append(entry)
                if isinstance(key, ScalarNode):
                    scalars.append(Scalar(key, None, entry))
                if item is not None:
                    walk(value, (*path, item), entry)

    for number, root in enumerate(roots):
        walk(root, (number,), None)
    return Document(text, roots, tuple(pairs), tuple(scalars))


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def start(node: Node) -> int:
    """Where ``node`` starts in the text (its anchor or tag included)."""
    return int(node.start_mark.index)


def is_flow(node: Node) -> bool:
    """Whether a collection is written in flow style (``{...}``, ``[...]``)."""
    return bool(getattr(node, "flow_style", False))


def content_end(node: Node, text: str, floor: int) -> int:
    """Where the text of ``node`` ends, trailing blanks and line ends not counted.

    ``floor`` is the earliest place the node can be written (after its key or
    the previous item): a node that starts before it is an alias, whose marks
    point at the anchor, so the ``*name`` after ``floor`` is measured instead.
    A block collection's end mark lies at the next token, often lines later,
    so its end is that of its last item.
    """
    if start(node) < floor:
        match = _ALIAS.search(text, floor)
        if match is None:
            raise Declined("cannot find where an alias is written")
        return match.end()
    if isinstance(node, ScalarNode) or is_flow(node):
        end = int(node.end_mark.index)
        while end > start(node) and text[end - 1] in _WHITESPACE:
            end -= 1
        return end
    if isinstance(node, SequenceNode) and node.value:
        position = start(node)
        for item in node.value:
            position = content_end(item, text, position)
        return position
    if isinstance(node, MappingNode) and node.value:
        position = start(node)
        for key, value in node.value:
            position = content_end(key, text, position)
            position = max(position, content_end(value, text, position))
        return position
    return start(node)


def key_end(pair: Pair, text: str) -> int:
    """Where the key of ``pair`` ends (a key is never an alias here)."""
    return content_end(pair.key, text, start(pair.mapping))


def value_end(pair: Pair, text: str) -> int:
    """Where the value of ``pair`` ends; at the key's end for an empty value."""
    end = key_end(pair, text)
    return max(end, content_end(pair.value, text, end))


def find_pair(document: Document, source: SourceText, offset: int, key: str) -> Pair:
    """The pair whose key starts at ``offset``, else the innermost one holding it.

    Detlint's spans start at the key; the fallback takes a span that starts
    a little off (at the value, say) when the key's name still agrees.
    """
    for pair in document.pairs:
        if start(pair.key) == offset and _named(pair, key):
            return pair
    holding = [
        pair
        for pair in document.pairs
        if _named(pair, key)
        and start(pair.key) <= offset < value_end(pair, source.text)
        and source.position(start(pair.key))[0] == source.position(offset)[0]
    ]
    if not holding:
        raise Declined(f"cannot find the key `{key}` at the reported position")
    return max(holding, key=lambda pair: start(pair.key))


def _named(pair: Pair, key: str) -> bool:
    return isinstance(pair.key, ScalarNode) and (not key or str(pair.key.value) == key)


def find_scalar(document: Document, offset: int) -> Scalar:
    """The scalar holding ``offset``; a key's value when the offset is on the key.

    An env entry's span may start at its key (``PYTEST_ADDOPTS``), a
    command's at the command; either way the text to edit is a value.
    """
    text = document.text
    holding = [
        scalar
        for scalar in document.scalars
        if start(scalar.node) <= offset <= content_end(scalar.node, text, 0)
    ]
    if not holding:
        raise Declined("cannot find the YAML string at the reported position")
    scalar = max(holding, key=lambda found: start(found.node))
    if scalar.path is None and scalar.pair is not None:
        value = scalar.pair.value
        if not isinstance(value, ScalarNode) or start(value) < start(scalar.node):
            raise Declined("the key's value is not a plain string")
        matches = [found for found in document.scalars if found.node is value]
        if not matches:
            raise Declined("the key's value is not a plain string")
        return matches[0]
    return scalar


def scalar_content(node: ScalarNode, text: str) -> tuple[int, int]:
    """The range of a scalar's characters inside its quotes or below its block header."""
    begin, end = start(node), content_end(node, text, 0)
    if text[begin : begin + 1] in ("&", "!"):
        raise Declined("the string has an anchor or tag")
    style = node.style
    if style in ('"', "'"):
        return begin + 1, end - 1
    if style in ("|", ">"):
        header_end = text.find("\n", begin)
        if header_end < 0 or header_end >= end:
            raise Declined("cannot find the block scalar's lines")
        return header_end + 1, end
    return begin, end
