"""A Python file as its fixes parse it: the code they read, in one parse.

libcst's parse and metadata walk the whole tree in Python, seconds for a 280 kB
test module, and the JSON, SARIF and GitLab reports build a fix for every
finding. What a fix reads is a marker's expression and what holds it
(decorators, a signature, a ``pytestmark`` list, a class body's statements),
never the body of a function its span is not in: each such body (``ast``, in C,
says where they are) is parsed as one ``pass`` line, the line numbers mapped
back, the columns the file's. The cut is parsed by libcst once per file and
shared by every fix in it; a fix whose span is inside a function's body gets a
cut with that body kept.

The file is also cut at its top-level statements, to check an edit cheaply: a
top-level statement starts at column 0, so the file parses after edits that each
lie inside one (with the comments above it), leaving it ending at a line end,
exactly when every edited one parses alone. Edits elsewhere are checked on the
whole file.

libcst is given nothing ``ast`` has not read first: ``ast`` rejects in
milliseconds what crashes libcst's native parser (thousands of nested
parentheses) or runs its Python-side walks out of stack (a chain of hundreds of
calls or ``+``), so a file ``ast`` cannot parse gets no fix, and neither does a
statement nested deeper than :data:`MAX_DEPTH` in the part libcst would parse.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterable
from typing import NamedTuple

from detlint.fixes.edits import Declined, Edit, apply_edits
from detlint.fixes.python_locate import Cut, Parsed, parse
from detlint.fixes.python_members import Member, member_parses, members
from detlint.fixes.source_text import SourceText

_LINE_END = re.compile(r"(?:\r\n|\r|\n)\Z")

# The deepest nesting of ``ast`` nodes handed to libcst. Its code-generating walk
# takes a few Python frames per level and fails near 450 levels under the default
# recursion limit; real code stays far below.
MAX_DEPTH = 200


class PythonFile:
    """One file's top-level statements and function bodies (first and last lines), and
    its cuts, parsed as fixes ask: ``wanted``, the lines the fixes of a report will
    ask for, go into the first cut, so that it is the only one."""

    def __init__(self, source: SourceText, wanted: Iterable[int] = ()) -> None:
        self.source = source
        self._pieces: list[tuple[int, int]] = []
        self._bodies: list[tuple[int, int, int]] = []
        self._pytest = False
        self._wanted: set[int] = set()
        self._parsed: dict[int | None, tuple[frozenset[int], Parsed]] = {}
        self._whole: Parsed | None = None
        self._refused: str | None = None
        self._depths = _Depths([], [], 0)
        self._members: list[Member] = []
        try:
            tree = ast.parse(source.text)
        except (SyntaxError, ValueError) as error:
            self._refused = _unreadable(source.path, error)
            return
        except (RecursionError, MemoryError):
            self._refused = (
                f"{source.path} nests too deeply for Python's parser; no fix is made in it"
            )
            return
        self._pieces = _pieces(tree.body)
        self._bodies = _bodies(tree.body, source)
        self._depths = _depths(tree.body, self._pieces, self._bodies)
        self._members = members(tree.body, source)
        self._pytest = _imports_pytest(tree.body)
        self._wanted = {
            index
            for index in map(self._piece, wanted)
            if index is not None and self._depths.pieces[index] <= MAX_DEPTH
        }

    def at_line(self, line: int) -> Parsed:
        """The file parsed for a span at ``line``: the statements asked for so far, or
        the whole file where ``line`` is in none; ``Declined`` where libcst would be
        given what ``ast`` could not read or nesting beyond :data:`MAX_DEPTH`."""
        if self._refused is not None:
            raise Declined(self._refused)
        piece = self._piece(line)
        if piece is None:
            self._bound(self._depths.whole, line)
            if self._whole is None:
                self._whole = parse(self.source)
            return self._whole
        self._bound(self._depths.pieces[piece], line)
        self._wanted.add(piece)
        index = bisect.bisect_left(self._bodies, line, key=lambda body: body[1])
        kept = index if index < len(self._bodies) and self._bodies[index][0] <= line else None
        if kept is not None:
            self._bound(self._depths.bodies[kept], line)
        if kept not in self._parsed or piece not in self._parsed[kept][0]:
            pieces = frozenset(self._wanted)
            self._parsed[kept] = (pieces, parse(self.source, self._cut(kept, sorted(pieces))))
        return self._parsed[kept][1]

    def _bound(self, depth: int, line: int) -> None:
        if depth > MAX_DEPTH:
            raise Declined(
                f"the code around {self.source.path}:{line} nests {depth} levels deep, "
                f"beyond the {MAX_DEPTH} detlint's fix builder handles; no fix is made there"
            )

    def _cut(self, kept: int | None, pieces: list[int]) -> Cut:
        """The top-level statements ``pieces``, with every function body in them but
        ``kept`` one ``pass`` line at the indentation of its first line, that line's
        number."""
        lines, text = self.source.lines, self.source.text
        parts: list[str] = []
        numbers: list[int] = []
        for piece in pieces:
            line, last = self._pieces[piece]
            body = bisect.bisect_left(self._bodies, (line,))
            while body < len(self._bodies) and self._bodies[body][0] <= last:
                first, body_last, column = self._bodies[body]
                if body != kept:
                    start = lines.line_start(first)
                    parts.append(text[lines.line_start(line) : start])
                    numbers.extend(range(line, first + 1))
                    ending = _line_end(text[start : lines.line_end(body_last)])
                    parts.append(" " * column + "pass" + ending)
                    line = body_last + 1
                body += 1
            parts.append(text[lines.line_start(line) : lines.line_end(last)])
            numbers.extend(range(line, last + 1))
        return Cut("".join(parts), tuple(numbers), self._pytest)

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
        if edits and member_parses(source, self._members, edits):
            return
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


def _pieces(body: list[ast.stmt]) -> list[tuple[int, int]]:
    """The top-level statements, each from the line after the one before it (its
    comments and decorators) through its last line; statements sharing a line are
    one."""
    pieces: list[tuple[int, int]] = []
    for statement in body:
        decorators = getattr(statement, "decorator_list", [])
        first = min([statement.lineno, *(decorator.lineno for decorator in decorators)])
        last = statement.end_lineno or statement.lineno
        if pieces and first <= pieces[-1][1]:
            pieces[-1] = (pieces[-1][0], max(last, pieces[-1][1]))
        else:
            pieces.append((pieces[-1][1] + 1 if pieces else 1, last))
    return pieces


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _bodies(statements: list[ast.stmt], source: SourceText) -> list[tuple[int, int, int]]:
    """The bodies of the functions not inside another, first and last line and the
    column they start at, in order: those that start a line of their own, indented
    with spaces alone (``def f(): return 1`` keeps its body)."""
    bodies: list[tuple[int, int, int]] = []
    pending: list[ast.AST] = list(reversed(statements))
    while pending:
        node = pending.pop()
        if isinstance(node, _FUNCTIONS):
            first, column = node.body[0].lineno, node.body[0].col_offset
            start = source.lines.line_start(first)
            if source.text[start : start + column] == " " * column:
                bodies.append((first, node.body[-1].end_lineno or first, column))
                continue
        pending.extend(
            reversed(
                [
                    child
                    for child in ast.iter_child_nodes(node)
                    if isinstance(child, ast.stmt | ast.excepthandler | ast.match_case)
                ]
            )
        )
    return sorted(bodies)


class _Depths(NamedTuple):
    """The deepest nesting of ``ast`` nodes in each top-level statement outside the
    function bodies a cut leaves out, in each of those bodies, and in the module."""

    pieces: list[int]
    bodies: list[int]
    whole: int


def _depths(
    statements: list[ast.stmt], pieces: list[tuple[int, int]], bodies: list[tuple[int, int, int]]
) -> _Depths:
    """Each piece's and each body's nesting (:class:`_Depths`), in one walk without
    recursion (the tree may be thousands of levels deep)."""
    piece_depths, body_depths, whole = [0] * len(pieces), [0] * len(bodies), 0
    body_at = {first: index for index, (first, _, _) in enumerate(bodies)}
    pending: list[tuple[ast.AST, int, int | None, int | None]] = []
    for statement in reversed(statements):
        index = bisect.bisect_left(pieces, statement.lineno, key=lambda piece: piece[1])
        pending.append((statement, 1, None, index if index < len(pieces) else None))
    while pending:
        node, depth, body, piece = pending.pop()
        whole = max(whole, depth)
        if body is not None:
            body_depths[body] = max(body_depths[body], depth)
        elif piece is not None:
            piece_depths[piece] = max(piece_depths[piece], depth)
        cut, inner = None, set()
        if isinstance(node, _FUNCTIONS) and body is None:
            cut = body_at.get(node.body[0].lineno)
            inner = set(map(id, node.body)) if cut is not None else set()
        for child in ast.iter_child_nodes(node):
            pending.append((child, depth + 1, cut if id(child) in inner else body, piece))
    return _Depths(piece_depths, body_depths, whole)


def _unreadable(path: str, error: SyntaxError | ValueError) -> str:
    """Why a file ``ast`` rejects gets no fix."""
    if isinstance(error, SyntaxError):
        where = f", line {error.lineno}" if error.lineno else ""
        what = f"{error.msg}{where}"
    else:
        what = str(error)
    return f"Python's parser cannot read {path} ({what}); no fix is made in it"


def _line_end(line: str) -> str:
    """The line end ``line`` (a line's text, maybe several) ends with, or ``""``."""
    match = _LINE_END.search(line)
    return match.group() if match is not None else ""


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
