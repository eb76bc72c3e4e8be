"""An import that a marker fix leaves unused, removed by the same fix.

A fix that replaces or drops a marker (``@fl(max_runs=3)`` after ``from flaky
import flaky as fl``) can take away the last use of the name the marker was
written with; leaving the import would trade a detlint finding for an
unused-import one. The import goes only when the name appears nowhere else in
the file as the fix leaves it, as a name or as a whole string (a name in
``__all__`` or given to ``getattr`` stays bound), and only from a module-level import
statement on lines of its own: one that binds other names too loses just this
one. Anything less plain is left as it is.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from collections.abc import Sequence

import libcst as cst

from detlint.fixes.edits import Declined, Edit, apply_edits
from detlint.fixes.source_text import SourceText


def _bound(alias: ast.alias, node: ast.Import | ast.ImportFrom) -> str:
    """The name an import alias binds (``import a.b`` binds ``a``)."""
    if alias.asname is not None:
        return alias.asname
    return alias.name.partition(".")[0] if isinstance(node, ast.Import) else alias.name


def unused_import_edits(source: SourceText, edits: Sequence[Edit], name: str) -> list[Edit]:
    """The edit that removes ``name``'s import when ``edits`` take away its last use;
    none when the name is still used, or its import is not plain enough to edit."""
    if not name.isidentifier():
        return []
    body = _statements(source.text)
    if body is None:
        return []
    found = [
        (index, node)
        for index, node in enumerate(body)
        if isinstance(node, ast.Import | ast.ImportFrom)
        and any(_bound(alias, node) == name for alias in node.names)
    ]
    if len(found) != 1:
        return []
    index, statement = found[0]
    last = statement.end_lineno or statement.lineno
    before = body[index - 1].end_lineno if index else 0
    after = body[index + 1].lineno if index + 1 < len(body) else last + 1
    if (before or 0) >= statement.lineno or after <= last or statement.col_offset:
        return []  # shares a line with another statement
    start, end = source.line_range(statement.lineno)[0], source.line_range(last)[1]
    removal = [*edits, Edit(source.path, start, end, "")]
    try:
        apply_edits(source.text, removal)
    except Declined:
        return []  # the fix edits the import itself
    if _used(source.text, removal, name):
        return []
    kept = [alias for alias in statement.names if _bound(alias, statement) != name]
    if not kept:
        start, end = _with_blank_lines(source, statement.lineno, last)
        return [Edit(source.path, start, end, "")]
    trimmed = _trimmed(source.text[start:end], name)
    return [] if trimmed is None else [Edit(source.path, start, end, trimmed)]


def _with_blank_lines(source: SourceText, first: int, last: int) -> tuple[int, int]:
    """The range of lines ``first`` to ``last``, with the blank lines that would be left
    doubled: those after a statement at the top of the file, or those before one
    that blank lines surround (``import a`` / blank / ``import b`` / 2 blank / code
    keeps the 2 blank lines before the code)."""

    def blank(line: int) -> bool:
        start, end = source.line_range(line)
        return 1 <= line <= source.lines.line_count() and not source.text[start:end].strip()

    if all(blank(line) for line in range(1, first)):
        while last < source.lines.line_count() and blank(last + 1):
            last += 1
        return source.line_range(1)[0], source.line_range(last)[1]
    if blank(first - 1) and blank(last + 1):
        while first > 1 and blank(first - 1):
            first -= 1
    return source.line_range(first)[0], source.line_range(last)[1]


def _used(text: str, edits: Sequence[Edit], name: str) -> bool:
    """Whether ``text`` with ``edits`` made uses ``name``: as a name in code, or as the
    whole of a string (``__all__``, ``getattr``). A use of the original text counts unless
    an edit removes all of it; text an edit writes counts where it holds the name as a
    word; True when the text cannot be read as tokens."""
    table = _uses(text)
    if table is None:
        return True  # not tokenized: keep the import
    if any(_writes(edit.content, name) for edit in edits):
        return True
    return any(not any(e.start <= a and b <= e.end for e in edits) for a, b in table.get(name, ()))


def _writes(content: str, name: str) -> bool:
    """Whether the text an edit writes uses ``name`` (as a name, or the name quoted);
    where it is no whole piece of code to tokenize, whether it holds the name as a word."""
    table = _uses(content)
    if table is None:
        return re.search(rf"\b{re.escape(name)}\b", content) is not None
    return name in table


@functools.lru_cache(maxsize=8)
def _statements(text: str) -> list[ast.stmt] | None:
    """The module's statements, parsed once per text: a file with a hundred fixes asks
    for each of them."""
    try:
        return ast.parse(text).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@functools.lru_cache(maxsize=64)
def _uses(text: str) -> dict[str, list[tuple[int, int]]] | None:
    """Where each name is used in ``text`` (character ranges): as a name token, or as a
    string token that is exactly the name quoted; read once per text. None when the
    text cannot be read as tokens."""
    # Lines as the tokenizer reads them: ``readline`` of a StringIO ends each at "\n".
    starts = [0, *(match.end() for match in re.finditer("\n", text))]
    found: dict[str, list[tuple[int, int]]] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            word = token.string
            if token.type == tokenize.STRING:
                quote = word[:1]
                if quote not in ("'", '"') or word[-1:] != quote or len(word) < 2:
                    continue
                word = word[1:-1]
            elif token.type != tokenize.NAME:
                continue
            (row, column), (end_row, end_column) = token.start, token.end
            span = (starts[row - 1] + column, starts[end_row - 1] + end_column)
            found.setdefault(word, []).append(span)
    except (tokenize.TokenError, SyntaxError, IndexError):
        return None
    return found


def _trimmed(lines: str, name: str) -> str | None:
    """The import statement written in ``lines`` without the alias binding ``name``."""
    try:
        module = cst.parse_module(lines)
    except cst.ParserSyntaxError:
        return None
    line = module.body[0] if module.body else None
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    statement = line.body[0]
    if not isinstance(statement, cst.Import | cst.ImportFrom) or isinstance(
        statement.names, cst.ImportStar
    ):
        return None
    names = [alias for alias in statement.names if _cst_bound(alias, statement) != name]
    if len(names) == len(statement.names):
        return None
    parenthesised = isinstance(statement, cst.ImportFrom) and statement.lpar is not None
    if not parenthesised:
        names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    new = statement.with_changes(names=names)
    return module.with_changes(body=[line.with_changes(body=[new])]).code


def _cst_bound(alias: cst.ImportAlias, statement: cst.Import | cst.ImportFrom) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    dotted = cst.Module(body=[]).code_for_node(alias.name)
    return dotted.partition(".")[0] if isinstance(statement, cst.Import) else dotted
