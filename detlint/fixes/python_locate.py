"""Where a plan's span sits in a Python module, and the text around it.

libcst parses the module only to find nodes and their exact extents; the edits
are then made on the original text, so that everything they do not cover stays
byte for byte as it was (comments, blank lines, CRLF, tabs). Positions from
libcst (1-based lines, 0-based character columns, parentheses excluded, as the
Python pass's spans exclude them) become offsets through :class:`SourceText`,
which counts line ends the way the spans do.
"""

from __future__ import annotations

import functools
import io
import re
import tokenize
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange

from detlint.base.span import Span
from detlint.fixes.edits import Declined
from detlint.fixes.python_ranges import ranges_and_parents
from detlint.fixes.source_text import SourceText

# What may follow a construct on its line for the line to count as the construct's
# own: blanks, a comment, the line end (or the end of the file).
_LINE_TAIL = re.compile(r"[ \t\f]*(?:#[^\r\n]*)?(?:\r\n|\r|\n|\Z)")
_BLANKS = " \t\f"
_BLANKS_TO_LINE_END = re.compile(r"[ \t\f]*(?=\r\n|\r|\n)")

# An edit of the file being located in: start, end, new content.
Edit3 = tuple[int, int, str]


@dataclass(frozen=True)
class Item:
    """One element of a list or tuple, or one argument of a call: where it starts
    and ends (parentheses around it included), and where its comma ends, if any."""

    start: int
    end: int
    comma_end: int | None


@dataclass(frozen=True)
class Cut:
    """A module as ``text`` to parse: its lines, but for code that no fix reads (the
    bodies of functions a fix is not in) each made one ``pass`` line; ``lines[i]`` is
    the file's line of line ``i + 1`` of ``text``, whose columns are the file's. And
    whether the module imports pytest, read off the whole of it."""

    text: str
    lines: tuple[int, ...]
    imports_pytest: bool


@dataclass(frozen=True)
class Parsed:
    """A module parsed once, with each node's range and parent.

    ``module`` is the whole file, or a :class:`Cut` of it (then ``lines`` maps its
    lines to the file's). ``imports_pytest`` is said of the whole file.
    """

    source: SourceText
    module: cst.Module
    ranges: Mapping[cst.CSTNode, CodeRange]
    parents: Mapping[cst.CSTNode, cst.CSTNode]
    lines: tuple[int, ...]
    imports_pytest: bool

    def _file_line(self, line: int) -> int:
        if not self.lines:
            return line
        if line <= len(self.lines):
            return self.lines[line - 1]
        return self.lines[-1] + line - len(self.lines)

    @functools.cached_property
    def _parsed_lines(self) -> dict[int, int]:
        return {line: number for number, line in enumerate(self.lines, 1)}

    def start(self, node: cst.CSTNode) -> int:
        position = self.ranges[node].start
        return self.source.offset(self._file_line(position.line), position.column + 1)

    def end(self, node: cst.CSTNode) -> int:
        position = self.ranges[node].end
        return self.source.offset(self._file_line(position.line), position.column + 1)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(node)

    def at(self, span: Span) -> cst.BaseExpression:
        """The expression the span points at: the one starting at the span's start and
        ending at its end, else the outermost starting there (a span may have been cut
        short, never moved)."""
        start = (self._line(span.line), span.column - 1)
        end = (self._line(span.end_line), span.end_column - 1)
        found = self._expressions.get(start, [])
        if not found:
            raise Declined(f"no expression starts at {span.path}:{span.line}:{span.column}")
        exact = [
            node
            for node in found
            if (self.ranges[node].end.line, self.ranges[node].end.column) == end
        ]
        pool = exact or found
        return max(pool, key=lambda node: (self.end(node), -self._depth(node)))

    def _line(self, line: int) -> int:
        """The parsed line of the file's ``line`` (0, none, for a line cut out)."""
        return self._parsed_lines.get(line, 0) if self.lines else line

    @functools.cached_property
    def _expressions(self) -> dict[tuple[int, int], list[cst.BaseExpression]]:
        """The expressions by where they start, in the order of ``ranges``: looked up
        once per fix, where a scan of every node per fix is quadratic in a module with
        a hundred markers."""
        starts: dict[tuple[int, int], list[cst.BaseExpression]] = {}
        for node, where in self.ranges.items():
            if isinstance(node, cst.BaseExpression):
                starts.setdefault((where.start.line, where.start.column), []).append(node)
        return starts

    def _depth(self, node: cst.CSTNode) -> int:
        depth, parent = 0, self.parents.get(node)
        while parent is not None:
            depth, parent = depth + 1, self.parents.get(parent)
        return depth

    def item(self, node: cst.BaseElement | cst.Arg) -> Item:
        comma = node.comma
        comma_end = self.end(comma) if isinstance(comma, cst.Comma) else None
        return Item(self.start(node), self.end(node), comma_end)

    def items(self, nodes: Sequence[cst.BaseElement | cst.Arg]) -> list[Item]:
        return [self.item(node) for node in nodes]

    def whole_lines(self, start: int, end: int) -> tuple[int, int] | None:
        """The lines from ``start``'s through ``end``'s, line end and a trailing comment
        included, when nothing else shares them; else None."""
        text = self.source.text
        line, _ = self.source.position(start)
        line_start = self.source.line_range(line)[0]
        if text[line_start:start].strip(_BLANKS):
            return None
        tail = _LINE_TAIL.match(text, end)
        return (line_start, tail.end()) if tail is not None else None

    def indent(self, offset: int) -> str:
        """The blanks that start the line holding ``offset``."""
        line_start = self.source.line_range(self.source.position(offset)[0])[0]
        line = self.source.text[line_start:offset]
        return line[: len(line) - len(line.lstrip(_BLANKS))]

    def starts_line(self, offset: int) -> bool:
        line_start = self.source.line_range(self.source.position(offset)[0])[0]
        return not self.source.text[line_start:offset].strip(_BLANKS)

    def line_tail(self, offset: int) -> int | None:
        """Where the line holding ``offset`` ends (after its line end), when only blanks
        and a comment follow ``offset`` on it."""
        tail = _LINE_TAIL.match(self.source.text, offset)
        return tail.end() if tail is not None else None


def parse(source: SourceText, cut: Cut | None = None) -> Parsed:
    """Parse a module, or a cut of it, for locating; a file libcst cannot parse is
    declined."""
    text, pytest = source.text, None
    lines: tuple[int, ...] = ()
    if cut is not None:
        text, lines, pytest = cut.text, cut.lines, cut.imports_pytest
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        raise Declined(f"{source.path} does not parse: {error.message}") from None
    ranges, parents = ranges_and_parents(module)
    imports = imports_pytest(module) if pytest is None else pytest
    return Parsed(source, module, ranges, parents, lines, imports)


def dotted(node: cst.BaseExpression) -> str | None:
    """``pytest.mark.flaky`` for a chain of names and attributes; None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        owner = dotted(node.value)
        return f"{owner}.{node.attr.value}" if owner is not None else None
    return None


def mark_name(node: cst.BaseExpression) -> str | None:
    """The dotted name a marker is written with, called or not."""
    return dotted(node.func if isinstance(node, cst.Call) else node)


def imports_pytest(module: cst.Module) -> bool:
    """Whether the module's top level has ``import pytest`` binding the name ``pytest``."""
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.Import):
                continue
            for alias in small.names:
                name = dotted(alias.name) or ""
                if alias.asname is None and name.split(".")[0] == "pytest":
                    return True
                bound = alias.asname.name if alias.asname is not None else None
                if isinstance(bound, cst.Name) and bound.value == "pytest" and name == "pytest":
                    return True
    return False


def remove_item(parsed: Parsed, items: list[Item], index: int, tuple_like: bool) -> list[Edit3]:
    """The edits that remove ``items[index]`` (of several) with one adjoining comma, so
    that the rest reads as if it had never been there: its whole lines where it sits
    on lines of its own, else the item and the comma after it, or (the last item)
    the comma before it. A tuple left with one item keeps a comma after it."""
    text = parsed.source.text
    item = items[index]
    after = item.comma_end if item.comma_end is not None else item.end
    remaining = items[:index] + items[index + 1 :]
    edits: list[Edit3] = []
    lines = parsed.whole_lines(item.start, after)
    if lines is not None:
        edits.append((*lines, ""))
    elif index < len(items) - 1:
        following = items[index + 1].start
        if not re.search(r"[\r\n]", text[after:following]):
            edits.append((item.start, following, ""))
        else:
            start, end = item.start, after
            tail = _BLANKS_TO_LINE_END.match(text, end)
            if tail is not None:
                end = tail.end()
                while start > 0 and text[start - 1] in _BLANKS:
                    start -= 1
            edits.append((start, end, ""))
    elif index > 0:
        before = items[index - 1]
        keep_comma = tuple_like and len(remaining) == 1 and item.comma_end is None
        if "#" not in text[before.end : item.start]:
            start = before.comma_end if keep_comma and before.comma_end is not None else before.end
            edits.append((start, item.end, ""))
        elif parsed.starts_line(item.start) and before.comma_end is not None:
            # ``[a,  # why`` then ``flaky]`` on the next line: the comment stays with
            # ``a``, which gives up its comma unless the marker's own comma replaces it.
            line_start = parsed.source.line_range(parsed.source.position(item.start)[0])[0]
            if item.comma_end is not None:
                edits.append((line_start, item.comma_end, ""))
            else:
                edits.append((line_start, item.end, ""))
                if not keep_comma:
                    edits.append((before.comma_end - 1, before.comma_end, ""))
        else:
            raise Declined("a comment sits between the marker and the item before it")
    else:
        edits.append((item.start, after, ""))
    if tuple_like and len(remaining) == 1 and remaining[0].comma_end is None:
        edits.append((remaining[0].end, remaining[0].end, ","))
    return edits


def kept_comments(source: SourceText, start: int, end: int) -> list[Edit3]:
    """The comments written inside ``source.text[start:end]`` (an expression a fix
    replaces with one line), as an insertion of comment lines above the line it starts
    on, at that line's indentation: a comment line is valid between any two lines of
    code but a continued one. None when there are no comments."""
    text = source.text[start:end]
    if "#" not in text:
        return []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        raise Declined("the comments inside the marker could not be read to keep them") from None
    comments = [token.string for token in tokens if token.type == tokenize.COMMENT]
    if not comments:
        return []
    line_start = source.line_range(source.position(start)[0])[0]
    line = source.text[line_start:start]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    ending = source.line_end(start)
    return [(line_start, line_start, "".join(indent + c + ending for c in comments))]
