"""A bound a check compares a count with, as an expression of the loop's trial count.

``assert passes >= N - 1`` after ``for _ in range(N)`` bounds the passes by N - 1
whatever N is set to; ``assert passes >= 3`` by 3. The bound is kept as a small
expression (``detlint.model.threshold.Bound``) of literals and N, so the count a CI
step sets gets the threshold the test's code gives it. A name that is neither the
loop's bound nor a literal, a call other than ``int``/``math.floor``/``math.ceil``
or ``len`` of a list the loop fills once an iteration, leaves the bound unresolved:
detlint then counts no trials rather than guess.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from detlint.model.threshold import Bound
from detlint.readers.python.loop_tallies import Tally
from detlint.readers.python.names import dotted

_OPERATORS: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
}
_ROUNDING = {
    "int": "int",
    "math.floor": "floor",
    "math.ceil": "ceil",
    "floor": "floor",
    "ceil": "ceil",
}
MAX_DEPTH = 4

# A name -> the expression assigned to it (in the function, else the module).
NameLookup = Callable[[str], ast.expr | None]


class CountBounds:
    """Reads bounds for one loop: ``count`` is the expression of its ``range()``."""

    def __init__(self, count: ast.expr, lookup: NameLookup, tallies: dict[str, Tally]) -> None:
        self.count = ast.dump(count)
        self.lookup = lookup
        self.tallies = tallies

    def bound(self, expression: ast.expr, depth: int = 0) -> Bound | None:
        if depth > MAX_DEPTH:
            return None
        if ast.dump(expression) == self.count:
            return ("n",)
        if isinstance(expression, ast.Constant):
            value = expression.value
            if isinstance(value, int | float) and not isinstance(value, bool):
                return ("num", value)
            return None
        if isinstance(expression, ast.Name):
            if expression.id in self.tallies:
                return None  # what the loop counts is no bound on it
            assigned = self.lookup(expression.id)
            return self.bound(assigned, depth + 1) if assigned is not None else None
        if isinstance(expression, ast.UnaryOp) and isinstance(expression.op, ast.USub):
            operand = self.bound(expression.operand, depth)
            return ("neg", operand) if operand is not None else None
        if isinstance(expression, ast.BinOp):
            symbol = _OPERATORS.get(type(expression.op))
            left = self.bound(expression.left, depth)
            right = self.bound(expression.right, depth)
            if symbol is None or left is None or right is None:
                return None
            if symbol in ("/", "//") and right == ("num", 0):
                return None
            return (symbol, left, right)
        if isinstance(expression, ast.Call):
            return self._call(expression, depth)
        return None

    def _call(self, call: ast.Call, depth: int) -> Bound | None:
        if len(call.args) != 1 or call.keywords:
            return None
        name = dotted(call.func)
        argument = call.args[0]
        if name == "len" and isinstance(argument, ast.Name):
            tally = self.tallies.get(argument.id)
            # A list that gets one item every iteration holds N items after the loop.
            return ("n",) if tally is not None and tally.kind in ("flags", "values") else None
        rounding = _ROUNDING.get(name or "")
        if rounding is None:
            return None
        operand = self.bound(argument, depth)
        return (rounding, operand) if operand is not None else None
