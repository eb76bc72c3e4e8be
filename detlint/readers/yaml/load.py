"""Reading YAML text into a ``tree.py``, fast and without ever raising.

This runs on every pipeline file of a repository, so it must be cheap and it
must turn anything it cannot read into a :class:`~detlint.base.span.Problem` (DET901)
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

from detlint.base.gc_pause import cyclic_gc_paused
from detlint.base.line_index import LineIndex
from detlint.base.span import Problem, Span
from detlint.readers.yaml.errors import (
    MAX_DEPTH,
    blank_line,
    error_indexes,
    error_message,
    flow_too_deep,
    parse_problem,
    problem_at,
)
from detlint.readers.yaml.scalars import RESOLVED_START, resolve_plain, resolve_tagged
from detlint.readers.yaml.templates import FILL_END, Masked, looks_templated, mask_templates
from detlint.readers.yaml.tree import Position, YMap, YNode, YScalar, YSeq, merge_items

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
    """A collection being composed. Its size, aliases expanded, is ``1 + len(items) + extra``;
    its last child ends at ``items[-1].position``, or at ``alias_end`` if that is an alias."""

    __slots__ = ("alias_at", "alias_end", "append", "extra", "items", "start")

    def __init__(self, start: Any) -> None:
        self.start = start
        self.items: list[YNode] = []
        self.append = self.items.append
        self.extra = 0
        self.alias_at = 0  # len(items) just after the latest alias child
        self.alias_end = _NOWHERE  # where that alias token ends


_NOWHERE = Position(0, 0, 0, 0)
_MISSING = object()


class _Composer:
    """Builds ``tree.py`` nodes from one event stream."""

    def __init__(self, text: str, path: str, masked: Masked | None) -> None:
        self.text = text
        self.path = path
        self.masked = masked
        self.documents: list[YNode] = []
        self.problems: list[Problem] = []
        self.anchors: dict[str, tuple[YNode, int] | None] = {}
        self.expanded = 0
        self.lines: LineIndex | None = None  # only where ruamel's marks count odd breaks
        odd = "\r" in text or (not text.isascii() and any(c in text for c in "\x85\u2028\u2029"))
        if odd and _ODD_BREAKS.search(text):
            self.lines = LineIndex(text)

    def run(self, next_event: Callable[[], Any]) -> None:
        """Compose every document; a parser error propagates, with the documents so far kept.

        This loop runs once per event of every pipeline file, so names are bound
        locally and the common scalar (no tag, not a block scalar, no masked
        template, only ``\\n`` line breaks) is built inline; :meth:`scalar` builds the rest.
        """
        stack: list[_Frame] = []
        documents, anchors = self.documents, self.anchors
        append = documents.append  # adds a node to the collection being composed
        frame: _Frame | None = None  # that collection (None at the top level)
        plain_marks = self.lines is None
        unmasked = self.masked is None
        scalar, position = self.scalar, self.position
        dropping = False
        document_line = 1
        while (event := next_event()) is not None:
            kind = event.__class__
            if dropping:
                dropping = kind is not DocumentEndEvent
                continue
            try:
                if kind is ScalarEvent:
                    value = event.value
                    style = event.style
                    if (
                        plain_marks
                        and event.ctag is None
                        and style != "|"
                        and style != ">"
                        and (unmasked or FILL_END not in value)
                    ):
                        start, end = event.start_mark, event.end_mark
                        node: YNode = YScalar(
                            resolve_plain(value)
                            if (not value or value[0] in RESOLVED_START) and event.implicit[0]
                            else value,
                            value,
                            style == '"' or style == "'",
                            Position(
                                start.line + 1, start.column + 1, end.line + 1, end.column + 1
                            ),
                        )
                    else:
                        node = scalar(event)
                    if event.anchor is not None:
                        anchors[event.anchor] = (node, 1)
                elif kind is MappingStartEvent or kind is SequenceStartEvent:
                    if len(stack) >= MAX_DEPTH:
                        raise _Dropped(f"YAML nested more than {MAX_DEPTH} levels deep")
                    frame = _Frame(event)
                    stack.append(frame)
                    append = frame.append
                    if event.anchor is not None:
                        anchors[event.anchor] = None  # in progress: an alias to it recurses
                    continue
                elif kind is MappingEndEvent or kind is SequenceEndEvent:
                    done = stack.pop()
                    items, start = done.items, done.start
                    mark = start.start_mark
                    if start.flow_style or not items:
                        extent = position(mark, event.end_mark)
                    else:  # a block collection ends with its last child, not at the next token
                        tail = done.alias_end if done.alias_at == len(items) else items[-1].position
                        line, column = mark.line + 1, mark.column + 1
                        if not plain_marks:
                            line, column = self.line_column(mark.index, mark.line, mark.column)
                        extent = Position(line, column, tail.end_line, tail.end_column)
                    if start.__class__ is SequenceStartEvent:
                        node = YSeq(tuple(items), extent)
                    else:
                        node = YMap(self.pairs(items), extent)
                    size = 1 + len(items) + done.extra
                    if start.anchor is not None:
                        anchors[start.anchor] = (node, size)
                    if stack:
                        frame = stack[-1]
                        frame.extra += size - 1
                        append = frame.append
                    else:
                        frame, append = None, documents.append
                elif kind is AliasEvent:
                    node, size = self.alias(event)
                    if frame is not None:
                        frame.extra += size - 1
                        frame.alias_at = len(frame.items) + 1
                        frame.alias_end = position(event.start_mark, event.end_mark)
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
                frame, append = None, documents.append
                dropping = True
                continue
            append(node)

    def problem(self, mark: Any, message: str) -> None:
        line, column = self.line_column(*_mark(mark))
        self.problems.append(Problem.part(Span(self.path, line, column, line, column), message))

    def line_column(self, index: int, line: int, column: int) -> tuple[int, int]:
        """1-based line and column of a mark, counting only ``\\n`` as a line break."""
        if self.lines is None:
            return line + 1, column + 1
        return self.lines.position(index)

    def position(self, start: Any, end: Any) -> Position:
        if self.lines is None:
            return Position(start.line + 1, start.column + 1, end.line + 1, end.column + 1)
        line, column = self.line_column(start.index, start.line, start.column)
        end_line, end_column = self.line_column(end.index, end.line, end.column)
        return Position(line, column, end_line, end_column)

    def scalar(self, event: Any) -> YScalar:
        value: str = event.value
        style = event.style
        block = style == "|" or style == ">"
        marks = (event.start_mark, event.end_mark)
        position = self.block_scalar_position(*marks) if block else self.position(*marks)
        quoted = style == '"' or style == "'"
        if self.masked is not None and FILL_END in value:
            value = self.masked.unmask(value, event.start_mark.index, event.end_mark.index)
            return YScalar(value, value, quoted, position, block)
        tag = event.ctag
        if tag is not None:
            return YScalar(resolve_tagged(str(tag), value), value, quoted, position, block)
        resolved = resolve_plain(value) if event.implicit[0] else value
        return YScalar(resolved, value, quoted, position, block)

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
        if not merges:
            return tuple(pairs)
        merged, rejected = merge_items(pairs, merges)
        message = "merge key << needs a mapping or a list of mappings; it was kept as a key"
        for key in rejected:
            row, col = key.position.line, key.position.column
            self.problems.append(Problem.part(Span(self.path, row, col, row, col + 2), message))
        return merged

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
