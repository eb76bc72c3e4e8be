"""Module constants that decide a condition: ``_IS_SYNC = False`` then
``@pytest.mark.skipif(_IS_SYNC, ...)`` never skips, and ``IS_CI = True`` then
``if IS_CI: pytest.skip(...)`` always does.

Suites generated for two modes (an async test file turned into a sync one with the
flag flipped) and suites with a switch at the top write such conditions; read as
code, each would be a skip "where `_IS_SYNC`", an environment that never exists.
A name counts only when the module binds it exactly once, at the top level, to a
plain literal: a name bound again anywhere (another assignment, ``global``, a loop,
an import, ``as``) could hold anything by the time the condition is read, and stays
code. Nothing is executed: only literals, the names bound to them, ``not``,
``and``/``or`` and comparisons are read.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from detlint.readers.python.facts import ArgValue
from detlint.readers.python.names import COMPARISONS, NOT_LITERAL, NotLiteral, literal

_SCALARS = (bool, int, float, str, type(None))


def _binding_patterns(name: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(a plain assignment of ``name`` at the start of a line, any other way of binding
    it: augmented assignment, ``global``, ``:=``, ``as``, an import, a loop, unpacking)."""
    word = re.escape(name)
    assignment = re.compile(rf"^[ \t]*{word}[ \t]*(?::[^=\n]*)?=(?!=)", re.M)
    other = re.compile(
        rf"(?<![\w.]){word}[ \t]*(?:[-+*/%&|^@]|//|\*\*|<<|>>|:)="
        rf"|\bglobal\b[^\n]*\b{word}\b"
        rf"|\bas[ \t]+{word}\b"
        rf"|\bimport\b[^\n]*\b{word}\b"
        rf"|\bfor\b[^\n]*(?<![\w.]){word}\b[^\n]*\bin\b"
        rf"|^[ \t]*[\w\[\](), \t*]*,[ \t]*{word}\b[^=\n]*=(?!=)"
        rf"|^[ \t]*[\[(]?[ \t]*{word}[ \t]*,[^=\n]*=(?!=)",
        re.M,
    )
    return assignment, other


def bound_once(source: str, name: str) -> bool:
    """Whether ``source`` binds ``name`` by exactly one plain assignment (a cheap read of
    the text, which may say no to a name that is bound once: then it stays unknown)."""
    if name not in source:
        return False
    assignment, other = _binding_patterns(name)
    bound = [match for match in assignment.finditer(source) if not _in_call(source, match)]
    return len(bound) == 1 and other.search(source) is None


def _in_call(source: str, match: re.Match[str]) -> bool:
    """Whether a line that reads as an assignment is a keyword argument of a call that
    spans lines (``    max_runs=3,``): the line before it opens a bracket or ends in a
    comma, or the line itself does."""
    before = source[: match.start()].rstrip()
    line_end = source.find("\n", match.end())
    line = source[match.end() : line_end if line_end >= 0 else len(source)]
    return before.endswith(("(", "[", "{", ",")) or line.split("#", 1)[0].rstrip().endswith(",")


class Constants:
    """The literal constants of one module, found when a condition names them."""

    def __init__(
        self, source: str, assignments: Mapping[str, ast.expr], guarded: Mapping[str, object]
    ) -> None:
        self._source = source
        self._assignments = assignments
        self._guarded = guarded  # names defined in a branch: their value depends on it
        self._values: dict[str, ArgValue | NotLiteral] = {}

    def value(self, name: str) -> ArgValue | NotLiteral:
        """A name's literal value, when the module binds it once to a plain literal."""
        found = self._values.get(name)
        if found is None:
            found = self._values[name] = self._find(name)
        return found

    def _find(self, name: str) -> ArgValue | NotLiteral:
        node = self._assignments.get(name)
        if node is None or name in self._guarded:
            return NOT_LITERAL
        found = literal(node)
        if not isinstance(found, _SCALARS) or not bound_once(self._source, name):
            return NOT_LITERAL
        return found

    def evaluate(self, node: ast.expr) -> ArgValue | NotLiteral:
        """The value of an expression of literals and constants; for ``and``/``or`` with
        a part that is code, its truth when the known parts decide it."""
        if isinstance(node, ast.Name):
            return self.value(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            operand = self.evaluate(node.operand)
            return NOT_LITERAL if isinstance(operand, NotLiteral) else not operand
        if isinstance(node, ast.BoolOp):
            return self._bool_op(node)
        if isinstance(node, ast.Compare):
            return self._compare(node)
        found = literal(node)
        return found if isinstance(found, _SCALARS) else NOT_LITERAL

    def truth(self, node: ast.expr) -> bool | None:
        """Whether a condition holds, when the module's constants decide it."""
        found = self.evaluate(node)
        return None if isinstance(found, NotLiteral) else bool(found)

    def names_constant(self, node: ast.expr) -> bool:
        """Whether an expression uses a module constant (else ``literal`` says all)."""
        return any(
            isinstance(inner, ast.Name) and not isinstance(self.value(inner.id), NotLiteral)
            for inner in ast.walk(node)
        )

    def _bool_op(self, node: ast.BoolOp) -> ArgValue | NotLiteral:
        deciding = isinstance(node.op, ast.Or)  # the truth that ends the chain
        values = [self.evaluate(value) for value in node.values]
        for position, value in enumerate(values):
            if not isinstance(value, NotLiteral) and bool(value) is deciding:
                # Every part before it known too: Python's own value; else its truth.
                known = not any(isinstance(before, NotLiteral) for before in values[:position])
                return value if known else deciding
        if any(isinstance(value, NotLiteral) for value in values):
            return NOT_LITERAL
        return values[-1]

    def _compare(self, node: ast.Compare) -> ArgValue | NotLiteral:
        left = self.evaluate(node.left)
        if isinstance(left, NotLiteral):
            return NOT_LITERAL
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.evaluate(comparator)
            compare = COMPARISONS.get(type(op))
            if isinstance(right, NotLiteral) or compare is None:
                return NOT_LITERAL
            try:
                if not compare(left, right):
                    return False
            except TypeError:  # `"a" < 1` raises where it runs: not a condition to read
                return NOT_LITERAL
            left = right
        return True
