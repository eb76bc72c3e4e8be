"""Reading YAML text into a ``yaml_tree``, fast and without ever raising.

This runs on every pipeline file of a repository, so it must be cheap and it
must turn anything it cannot read into a :class:`~detlint.span.Problem` (DET901)
instead of an exception. The tree is built straight from parser events: with
``ruamel.yaml.clib`` installed the events come from libyaml through ruamel's
``CParser`` (several times faster than the pure-Python parser, which is the
fallback). ruamel's composers are not used: both recurse once per nesting level,
and the C one crashes the interpreter on deeply nested input, whereas this
composer keeps an explicit stack. Nothing is constructed by ruamel either:
scalars are resolved here with the YAML 1.2 core schema, as ruamel's safe loader
resolves them, so that duplicate keys and unhashable keys cannot raise.

Aliases reuse the node built for their anchor; merge keys are applied; a
document whose aliases expand to too many nodes, or that nests too deeply, is
dropped with a problem rather than handed to readers that walk it. When a file
is not valid YAML (or a template is not, once masked), the offending line is
blanked and the file read again, a few times at most, so that readers still
find the knobs on every other line.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

from detlint.ci_pass.templates import FILL_END, Masked, looks_templated, mask_templates
from detlint.ci_pass.yaml_errors import (
    MAX_DEPTH,
    blank_line,
    error_indexes,
    error_message,
    flow_too_deep,
    parse_problem,
    problem_at,
)
from detlint.ci_pass.yaml_scalars import resolve_plain, resolve_tagged
from detlint.ci_pass.yaml_tree import Position, YMap, YNode, YScalar, YSeq
from detlint.gc_pause import cyclic_gc_paused
from detlint.span import Problem, Span

try:
    from ruamel.yaml.cyaml import CParser  # type: ignore[attr-defined]
except ImportError:  # ruamel.yaml.clib is not installed (or not built for this platform)
    CParser = None

__all__ = ["C_PARSER", "YamlFile", "looks_templated", "read_yaml"]

C_PARSER: bool = CParser is not None
"""Whether libyaml's parser is available; without it reading is several times slower."""

MAX_ALIAS_NODES = 100_000
"""Nodes a document may reach through aliases before it is dropped ("billion laughs")."""
MAX_SKIPPED_LINES = 20
"""Unreadable lines blanked, one re-read each, before the rest of a file is given up."""
_REREAD_CHARS = 20_000_000  # and fewer re-reads for a large file, so that it stays cheap

# Line breaks that YAML parsers count but ``str.split("\n")`` does not.
_ODD_BREAKS = re.compile("\r(?!\n)|[\x85\u2028\u2029]")


@dataclass(frozen=True)
class YamlFile:
    """The documents of one YAML file and what could not be read."""

    path: str
    documents: tuple[YNode, ...]
    problems: tuple[Problem, ...] = ()
    templated: bool = False


class _Dropped(Exception):
    """The current document cannot be handed to readers; the message says why."""


class _Frame:
    """A collection being composed: its start event, children so far, expanded size."""

    __slots__ = ("items", "size", "start", "tail")

    def __init__(self, start: Any) -> None:
        self.start = start
        self.items: list[YNode] = []
        self.size = 1
        self.tail: Position | None = None  # where the last child ends in the source


_MISSING = object()


class _Composer:
    """Builds ``yaml_tree`` nodes from one event stream."""

    def __init__(self, text: str, path: str, masked: Masked | None) -> None:
        self.text = text
        self.path = path
        self.masked = masked
        self.documents: list[YNode] = []
        self.problems: list[Problem] = []
        self.anchors: dict[str, tuple[YNode, int] | None] = {}
        self.expanded = 0
        self.newlines: list[int] | None = None
        if any(c in text for c in "\r\x85\u2028\u2029") and _ODD_BREAKS.search(text):
            self.newlines = [m.start() for m in re.finditer("\n", text)]

    def run(self, next_event: Callable[[], Any]) -> None:
        """Compose every document; a parser error propagates, with the documents so far kept."""
        stack: list[_Frame] = []
        documents, anchors = self.documents, self.anchors
        dropping = False
        document_line = 1
        while (event := next_event()) is not None:
            kind = event.__class__
            if dropping:
                dropping = kind is not DocumentEndEvent
                continue
            try:
                if kind is ScalarEvent:
                    node: YNode = self.scalar(event)
                    size, tail = 1, node.position
                    if event.anchor is not None:
                        anchors[event.anchor] = (node, 1)
                elif kind is MappingStartEvent or kind is SequenceStartEvent:
                    if len(stack) >= MAX_DEPTH:
                        raise _Dropped(f"YAML nested more than {MAX_DEPTH} levels deep")
                    stack.append(_Frame(event))
                    if event.anchor is not None:
                        anchors[event.anchor] = None  # in progress: an alias to it recurses
                    continue
                elif kind is MappingEndEvent or kind is SequenceEndEvent:
                    frame = stack.pop()
                    node, size = self.collection(frame, event), frame.size
                    tail = node.position
                    if frame.start.anchor is not None:
                        anchors[frame.start.anchor] = (node, size)
                elif kind is AliasEvent:
                    node, size = self.alias(event)
                    tail = self.position(event.start_mark, event.end_mark)
                else:
                    if kind is DocumentStartEvent:
                        anchors.clear()
                        self.expanded = 0
                        document_line = self.line_column(*_mark(event.start_mark))[0]
                    continue
            except _Dropped as reason:
                where = f"the document starting at line {document_line} was skipped"
                self.problem(event.start_mark, f"{reason}; {where}")
                stack.clear()
                dropping = True
                continue
            if stack:
                parent = stack[-1]
                parent.items.append(node)
                parent.size += size
                parent.tail = tail
            else:
                documents.append(node)

    def problem(self, mark: Any, message: str) -> None:
        line, column = self.line_column(*_mark(mark))
        self.problems.append(Problem(Span(self.path, line, column, line, column), message))

    def line_column(self, index: int, line: int, column: int) -> tuple[int, int]:
        """1-based line and column of a mark, counting only ``\\n`` as a line break."""
        if self.newlines is None:
            return line + 1, column + 1
        line = bisect_right(self.newlines, index - 1)
        return line + 1, index - (self.newlines[line - 1] + 1 if line else 0) + 1

    def position(self, start: Any, end: Any) -> Position:
        if self.newlines is None:
            return Position(start.line + 1, start.column + 1, end.line + 1, end.column + 1)
        line, column = self.line_column(start.index, start.line, start.column)
        end_line, end_column = self.line_column(end.index, end.line, end.column)
        return Position(line, column, end_line, end_column)

    def scalar(self, event: Any) -> YScalar:
        value: str = event.value
        style = event.style
        if style == "|" or style == ">":
            position = self.block_scalar_position(event.start_mark, event.end_mark)
        else:
            position = self.position(event.start_mark, event.end_mark)
        quoted = style == '"' or style == "'"
        if self.masked is not None and FILL_END in value:
            value = self.masked.unmask(value, event.start_mark.index, event.end_mark.index)
            return YScalar(value, value, quoted, position)
        tag = event.ctag
        if tag is not None:
            return YScalar(resolve_tagged(str(tag), value), value, quoted, position)
        return YScalar(
            resolve_plain(value) if event.implicit[0] else value, value, quoted, position
        )

    def block_scalar_position(self, start: Any, end: Any) -> Position:
        """A block scalar ends at its last character, not after its trailing line breaks."""
        index, text = end.index, self.text
        newlines = 0
        while index > start.index and text[index - 1] in " \t\r\n":
            index -= 1
            newlines += text[index] == "\n"
        column = index - (text.rfind("\n", 0, index) + 1)
        line, col = self.line_column(start.index, start.line, start.column)
        end_line, end_column = self.line_column(index, end.line - newlines, column)
        return Position(line, col, end_line, end_column)

    def alias(self, event: Any) -> tuple[YNode, int]:
        entry = self.anchors.get(event.anchor, _MISSING)
        if isinstance(entry, tuple):
            node, size = entry
            self.expanded += size
            if self.expanded > MAX_ALIAS_NODES:
                raise _Dropped(
                    f"alias expansion too large: aliases reach more than {MAX_ALIAS_NODES} nodes"
                )
            return node, size
        reason = "is undefined" if entry is _MISSING else "refers to a node that contains it"
        self.problem(event.start_mark, f"alias *{event.anchor} {reason}; it was read as null")
        text = f"*{event.anchor}"
        return YScalar(None, text, False, self.position(event.start_mark, event.end_mark)), 1

    def collection(self, frame: _Frame, end: Any) -> YNode:
        start = frame.start
        if start.flow_style or frame.tail is None:
            position = self.position(start.start_mark, end.end_mark)
        else:  # a block collection ends where its last child does, not at the next token
            line, column = self.line_column(
                start.start_mark.index, start.start_mark.line, start.start_mark.column
            )
            position = Position(line, column, frame.tail.end_line, frame.tail.end_column)
        if start.__class__ is SequenceStartEvent:
            return YSeq(tuple(frame.items), position)
        return YMap(self.pairs(frame.items), position)

    def pairs(self, items: list[YNode]) -> tuple[tuple[YScalar, YNode], ...]:
        """A mapping's children as (key, value) pairs, with its merge keys applied."""
        pairs: list[tuple[YScalar, YNode]] = []
        merges: list[tuple[int, YScalar, YNode]] = []
        for index in range(0, len(items), 2):
            key, value = items[index], items[index + 1]
            if not isinstance(key, YScalar):
                key = YScalar(None, self.source(key.position), False, key.position)
            elif key.value == "<<" and not key.quoted:
                merges.append((len(pairs), key, value))
                continue
            pairs.append((key, value))
        if merges:
            return self.merge(pairs, merges)
        return tuple(pairs)

    def merge(
        self, pairs: list[tuple[YScalar, YNode]], merges: list[tuple[int, YScalar, YNode]]
    ) -> tuple[tuple[YScalar, YNode], ...]:
        """YAML merge: merged items go where ``<<`` was; explicit keys win over merged
        ones, and a mapping earlier in a ``<<: [...]`` list wins over a later one."""
        blocked = {_key_id(key) for key, _ in pairs}
        merged: list[tuple[YScalar, YNode]] = []
        done = 0
        for at, key, value in merges:
            merged.extend(pairs[done:at])
            done = at
            sources = [value] if isinstance(value, YMap) else getattr(value, "items", None)
            if not sources or not all(isinstance(source, YMap) for source in sources):
                line, column = key.position.line, key.position.column
                self.problems.append(
                    Problem(
                        Span(self.path, line, column, line, column + 2),
                        "merge key << needs a mapping or a list of mappings; it was kept as a key",
                    )
                )
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
        return tuple(merged)

    def source(self, position: Position) -> str:
        """The source text of a (complex key) node, for its ``text``."""
        lines = self.text.split("\n")[position.line - 1 : position.end_line]
        if not lines:
            return ""
        lines[-1] = lines[-1][: position.end_column - 1]
        lines[0] = lines[0][position.column - 1 :]
        return "\n".join(lines)


def _mark(mark: Any) -> tuple[int, int, int]:
    return mark.index, mark.line, mark.column


def _key_id(key: YScalar) -> tuple[type, object, str]:
    """What makes two keys the same key: their value and its type (``1`` is not ``"1"``)."""
    return (key.value.__class__, key.value, key.text if key.value is None else "")


def _events(text: str, pure: bool) -> Callable[[], Any]:
    """A function returning ``text``'s next parser event (None after the last), from
    libyaml when it is installed and can take the text."""
    if CParser is not None and not pure:
        try:
            return CParser(text).get_event  # type: ignore[no-any-return]
        except UnicodeEncodeError:  # lone surrogates: the pure parser says where
            pass
    return partial(next, YAML(typ="safe", pure=True).parse(text), None)


def read_yaml(text: str, path: str, *, pure: bool = False) -> YamlFile:
    """Every document of ``text`` (a file shown as ``path``); never raises.

    Template tags are masked first. A line the parser cannot read is blanked and the
    text read again, up to MAX_SKIPPED_LINES times; the problem says which lines were
    skipped. ``pure`` forces the pure-Python parser (for tests and comparisons).
    """
    try:
        with cyclic_gc_paused():  # the tree has no cycles
            return _read(text.removeprefix("\ufeff"), path, pure)  # columns start after a BOM
    except Exception as error:  # a bug must cost one file, never the run
        return YamlFile(
            path, (), (Problem(Span.file(path), f"could not read YAML: {error!r:.200}"),)
        )


def _compose(
    text: str, path: str, masked: Masked | None, pure: bool
) -> tuple[_Composer, YAMLError | None]:
    """The documents of ``text`` up to its first parser error, and that error."""
    composer = _Composer(text, path, masked)
    try:
        composer.run(_events(text, pure))
    except YAMLError as error:
        return composer, error
    return composer, None


def _first_error(error: YAMLError, text: str) -> tuple[int, str]:
    return min(error_indexes(error, text)[0], len(text)), error_message(error, text)


def _read(text: str, path: str, pure: bool) -> YamlFile:
    masked = mask_templates(text)
    source = masked.text if masked is not None else text
    too_deep = flow_too_deep(source)
    if too_deep is not None:
        message = f"YAML nested more than {MAX_DEPTH} levels deep; the file was not read"
        return YamlFile(path, (), (problem_at(path, source, too_deep, message),), bool(masked))
    composer, error = _compose(source, path, masked, pure)
    if error is not None and not pure and C_PARSER:
        # libyaml refuses some YAML that ruamel reads, such as a colon inside a flow
        # sequence's plain scalar ("[http://x]"): such a file is worth one slower read.
        fallback = _compose(source, path, masked, True)
        composer, error = fallback if fallback[1] is None else (composer, error)
    first = None if error is None else _first_error(error, source)
    skipped: list[int] = []
    rereads = min(MAX_SKIPPED_LINES, _REREAD_CHARS // max(len(text), 1))
    while error is not None and len(skipped) < rereads:
        blanked = next(
            filter(None, (blank_line(source, i) for i in error_indexes(error, source))), None
        )
        if blanked is None:
            break
        source, line = blanked
        skipped.append(line)
        composer, error = _compose(source, path, masked, pure)
    problems = composer.problems
    if first is not None:
        problems.insert(
            0, parse_problem(path, source, first, skipped, error is None, masked is not None)
        )
    return YamlFile(path, tuple(composer.documents), tuple(problems), masked is not None)
