"""Parsing test code, and the problem reported for code that does not parse.

Test code is parsed with the standard library's ``ast``: it is built into the
interpreter (nothing to import), parses an order of magnitude faster than a
concrete syntax tree library, and gives every node its position. Its limit
is the running interpreter's grammar: a file written for a newer Python
does not parse, and is reported as such rather than as broken code.
"""

from __future__ import annotations

import ast
import re
import sys
import warnings

from detlint.base.span import Problem, Span

TOO_DEEP = "too deeply nested to analyse; skipped"

# Constructs newer than some supported interpreter, newest first, so that the
# version named is the one the construct needs: (version, what, line pattern).
_NEWER_SYNTAX: tuple[tuple[tuple[int, int], str, re.Pattern[str]], ...] = (
    ((3, 14), "a template string", re.compile(r"(?<![\w'\"])(?:[tT][rR]?|[rR][tT])['\"]")),
    ((3, 14), "an except clause without parentheses", re.compile(r"^\s*except\s+[^\s(:][^:]*,")),
    (
        (3, 13),
        "a type parameter default",
        re.compile(r"^\s*(?:(?:async\s+)?def|class|type)\s+\w+\s*\[[^\]]*="),
    ),
    ((3, 12), "a type alias statement", re.compile(r"^\s*type\s+\w+\s*[\[=]")),
    ((3, 12), "type parameters", re.compile(r"^\s*(?:(?:async\s+)?def|class)\s+\w+\s*\[")),
    ((3, 11), "an except* clause", re.compile(r"^\s*except\s*\*")),
)
# What Python 3.11 and older say about f-strings that PEP 701 (3.12) made valid.
_PEP_701 = (
    "f-string: expecting '}'",
    "f-string: unmatched",
    "f-string expression part cannot include",
    "f-string: unterminated string",
)


def parse(text: str) -> ast.Module:
    """The tree of ``text``.

    Raises ``SyntaxError`` (also for null bytes, which some interpreters
    report as ``ValueError``), and ``RecursionError`` or ``MemoryError`` for
    too deeply nested code. Warnings the parser emits (invalid escape
    sequences) concern the code's author, not detlint's user, and are silenced.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(text)
        except ValueError as error:
            raise SyntaxError(str(error)) from error


def _newer_syntax(text: str, error: SyntaxError) -> tuple[tuple[int, int], str] | None:
    """The newer construct the line of ``error`` uses, when it is one."""
    running = sys.version_info[:2]
    line = error.text
    if line is None and error.lineno is not None:
        lines = text.splitlines()
        line = lines[error.lineno - 1] if 0 < error.lineno <= len(lines) else ""
    column = (error.offset or 1) - 1
    for version, what, pattern in _NEWER_SYNTAX:
        found = pattern.search(line or "") if version > running else None
        # The parser stops inside the construct (at the name after `type`, at the `[`).
        if found is not None and found.start() <= column <= found.end():
            return version, what
    if running < (3, 12) and (error.msg or "").startswith(_PEP_701):
        return (3, 12), "an f-string"
    return None


def syntax_problem(display: str, text: str, error: SyntaxError) -> Problem:
    """The DET901 problem for a file that does not parse, where the parser stopped."""
    line = max(error.lineno or 1, 1)
    column = max(error.offset or 1, 1)
    newer = _newer_syntax(text, error)
    if newer is not None:
        (major, minor), what = newer
        running = "{}.{}".format(*sys.version_info[:2])
        message = (
            f"uses {what}, syntax of Python {major}.{minor} that this Python ({running}) "
            f"cannot parse; not analysed (run detlint with Python {major}.{minor} or newer)"
        )
    else:
        message = f"invalid Python, not analysed: {error.msg}"
    return Problem(Span(display, line, column, line, column), message)
