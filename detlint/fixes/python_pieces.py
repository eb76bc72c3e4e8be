"""A Python file as its fixes parse it: cut at its top-level statements.

libcst's parse and its position and parent metadata walk the whole tree in
Python, seconds for a 280 kB test module, and the JSON, SARIF and GitLab reports
build a fix for every finding; a fix needs the nodes of one statement. ``ast``
(in C) gives where the top-level statements are. Such a statement starts at
column 0, so the lines from the end of the one before it through its own last
line parse alone to the same nodes at the same columns, only the line numbers
shifted. What a fix reads of a piece is a marker's expression and what holds it
(decorators, a signature, a ``pytestmark`` list, a class body's statements),
never the body of a function it is not in: those bodies are parsed as ``pass``
on their first line and empty lines after it, so that every line and column
stays where it was. Each piece is parsed by libcst once, when a fix first needs
it, and shared by every fix in it (another parse where a span is inside a
function's body, with that body kept).

The same cut makes the check of an edit cheap: the file parses after edits that
each lie inside a piece, leaving it ending at a line end, exactly when every
edited piece parses alone, since the pieces follow each other at column 0 with
nothing but comments and blank lines around them. Edits elsewhere are checked
on the whole file. A file ``ast`` cannot parse is one piece, checked whole.
"""

from __future__ import annotations

import ast
import bisect
import re

from detlint.fixes.edits import Declined, Edit, apply_edits
from detlint.fixes.python_locate import Parsed, Piece, parse
from detlint.fixes.source_text import SourceText

_LINE_END = re.compile(r"(?:\r\n|\r|\n)\Z")


class PythonFile:
    """One file's pieces (first and last line, and the statements of each), parsed as
    fixes ask."""

    def __init__(self, source: SourceText) -> None:
        self.source = source
        self._pieces: list[tuple[int, int]] = []
        self._statements: list[list[ast.stmt]] = []
        self._pytest = False
        self._parsed: dict[tuple[int, tuple[tuple[int, int, int], ...]], Parsed] = {}
        self._whole: Parsed | None = None
        try:
            tree = ast.parse(source.text)
        except (SyntaxError, ValueError):
            return
        self._pieces, self._statements = _pieces(tree.body)
        self._pytest = _imports_pytest(tree.body)

    def at_line(self, line: int) -> Parsed:
        """The parsed piece holding ``line``: the whole file where there is none."""
        index = self._piece(line)
        if index is None:
            if self._whole is None:
                self._whole = parse(self.source)
            return self._whole
        blanks = _blanks(self._statements[index], line)
        key = (index, tuple(blanks))
        if key not in self._parsed:
            first, last = self._pieces[index]
            text = _blanked(self.source, first, last, blanks)
            self._parsed[key] = parse(self.source, Piece(first, text, self._pytest))
        return self._parsed[key]

    def _piece(self, line: int) -> int | None:
        index = bisect.bisect_left(self._pieces, line, key=lambda piece: piece[1])
        if index < len(self._pieces) and self._pieces[index][0] <= line:
            return index
        return None

    def check(self, edits: list[Edit]) -> None:
        """Decline when the file would not parse with ``edits`` (its own) applied."""
        source = self.source
        for edit in edits:
            try:
                edit.content.encode(source.encoding)
            except UnicodeEncodeError:
                raise Declined(f"the fix writes text {source.encoding} cannot encode") from None
        by_piece: dict[int, list[Edit]] = {}
        for edit in edits:
            index = self._piece(source.position(edit.start)[0])
            if index is None or edit.end > self._range(index)[1]:
                by_piece = {}
                break
            by_piece.setdefault(index, []).append(edit)
        checks: list[str] = []
        for index, own in by_piece.items():
            start, end = self._range(index)
            moved = [Edit(e.path, e.start - start, e.end - start, e.content) for e in own]
            text = apply_edits(source.text[start:end], moved)
            if text and not text.endswith(("\n", "\r")):
                checks = []
                break
            checks.append(text)
        if not checks:
            checks = [apply_edits(source.text, edits)]
        for text in checks:
            try:
                ast.parse(text)
            except (SyntaxError, ValueError):
                raise Declined(f"{source.path} would not parse after the fix") from None

    def _range(self, index: int) -> tuple[int, int]:
        first, last = self._pieces[index]
        return self.source.lines.line_start(first), self.source.lines.line_end(last)


def _pieces(body: list[ast.stmt]) -> tuple[list[tuple[int, int]], list[list[ast.stmt]]]:
    """The pieces of a module's statements: each from the line after the one before it
    (its comments and decorators) through its last line; statements sharing a line
    share a piece."""
    pieces: list[tuple[int, int]] = []
    statements: list[list[ast.stmt]] = []
    for statement in body:
        decorators = getattr(statement, "decorator_list", [])
        first = min([statement.lineno, *(decorator.lineno for decorator in decorators)])
        last = statement.end_lineno or statement.lineno
        if pieces and first <= pieces[-1][1]:
            pieces[-1] = (pieces[-1][0], max(last, pieces[-1][1]))
            statements[-1].append(statement)
        else:
            pieces.append((pieces[-1][1] + 1 if pieces else 1, last))
            statements.append([statement])
    return pieces, statements


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _blanks(statements: list[ast.stmt], line: int) -> list[tuple[int, int, int]]:
    """The lines of the function bodies to blank: those of every function whose body
    does not hold ``line`` (a fix reads a function's decorators and signature, never
    its body unless its span is there), with the column its first statement starts at."""
    blanks: list[tuple[int, int, int]] = []
    pending: list[ast.AST] = list(statements)
    while pending:
        node = pending.pop()
        if isinstance(node, _FUNCTIONS):
            first, last = node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno
            if not first <= line <= last:
                blanks.append((first, last, node.body[0].col_offset))
                continue
        pending.extend(
            child
            for child in ast.iter_child_nodes(node)
            if isinstance(child, ast.stmt | ast.excepthandler | ast.match_case)
        )
    return sorted(blanks)


def _blanked(source: SourceText, first: int, last: int, blanks: list[tuple[int, int, int]]) -> str:
    """Lines ``first`` through ``last`` with each blanked body made ``pass`` on its first
    line, at that line's indentation, and empty lines after it, line ends kept. A body
    that shares its first line with other code (``def f(): return 1``) is kept."""
    lines, text = source.lines, source.text
    parts: list[str] = []
    position = lines.line_start(first)
    for start_line, end_line, column in blanks:
        start = lines.line_start(start_line)
        line = text[start : lines.line_end(start_line)]
        indent = line[: len(line) - len(line.lstrip(" \t\f"))]
        if len(indent) != column or start < position:
            continue
        parts.append(text[position:start])
        parts.append(indent + "pass")
        for number in range(start_line, end_line + 1):
            end = lines.line_end(number)
            ending = _LINE_END.search(text, lines.line_start(number), end)
            parts.append(ending.group() if ending is not None else "")
        position = lines.line_end(end_line)
    parts.append(text[position : lines.line_end(last)])
    return "".join(parts)


def _imports_pytest(body: list[ast.stmt]) -> bool:
    """Whether the module's top level has ``import pytest`` binding the name ``pytest``
    (:func:`~detlint.fixes.python_locate.imports_pytest`, read off ``ast``)."""
    for statement in body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname is None and alias.name.split(".")[0] == "pytest":
                    return True
                if alias.asname == "pytest" and alias.name == "pytest":
                    return True
    return False
