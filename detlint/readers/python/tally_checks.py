"""What a check after a loop makes of what the loop kept.

A loop that checks nothing itself is a trial loop only when a check after it fails
when any one iteration failed (``assert not failures``, ``assert mismatches == 0``,
``assert all(ok)``, ``assert max(errors) < tol``): then each iteration can fail the
test on its own. A check of a count against a bound (``assert passes >= 3``) fails
only when enough iterations failed: a pass threshold. A check of an aggregate
(``assert mean(losses) < x``, ``assert len(set(outputs)) > 1``, a helper given the
list) is one check of one value, however many iterations built it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Literal

from detlint.model.threshold import Bound, Counted, Operator, Threshold, evaluate
from detlint.readers.python.count_bounds import CountBounds
from detlint.readers.python.fresh_values import computed
from detlint.readers.python.loop_tallies import Tally

ReadingKind = Literal["each", "threshold", "aggregate", "unresolved"]


@dataclass(frozen=True)
class Reading:
    """What one check after the loop makes of its tallies."""

    kind: ReadingKind
    threshold: Threshold | None = None


EACH = Reading("each")
AGGREGATE = Reading("aggregate")
UNRESOLVED = Reading("unresolved")
AT_LEAST_ONE = Reading("threshold", Threshold("passes", ">=", ("num", 1)))

_FLIPPED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.Gt,
    ast.LtE: ast.GtE,
    ast.Gt: ast.Lt,
    ast.GtE: ast.LtE,
    ast.Eq: ast.Eq,
    ast.NotEq: ast.NotEq,
}
_NEGATED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.GtE,
    ast.LtE: ast.Gt,
    ast.Gt: ast.LtE,
    ast.GtE: ast.Lt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
}
_OPERATORS: dict[type[ast.cmpop], Operator] = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
}
_EMPTY_CALLS = frozenset({"list", "set", "dict", "tuple"})
# Quantities a check reads off a tally: how many iterations saw an event, whether any
# did, how many distinct values the iterations gave, the largest or smallest value.
Quantity = Literal["count", "zeroable", "list", "distinct", "max", "min"]


def _empty(node: ast.expr) -> bool:
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return not node.elts
    if isinstance(node, ast.Dict):
        return not node.keys
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in _EMPTY_CALLS and not node.args and not node.keywords
    return isinstance(node, ast.Constant) and node.value == 0 and not isinstance(node.value, bool)


def _called(node: ast.AST) -> str:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id
    return ""


def _zero(bound: Bound) -> bool:
    return bound == ("num", 0) or bound == ("num", 0.0)


class TallyChecks:
    """Reads the checks after one loop against what it kept."""

    def __init__(self, tallies: dict[str, Tally], bounds: CountBounds) -> None:
        self.tallies = tallies
        self.bounds = bounds

    def reads(self, node: ast.AST) -> bool:
        return any(
            isinstance(inner, ast.Name) and inner.id in self.tallies for inner in ast.walk(node)
        )

    def readings(self, required: ast.expr) -> list[Reading]:
        """What a check requiring ``required`` to be true makes of the tallies."""
        if not self.reads(required):
            return []
        if isinstance(required, ast.BoolOp) and isinstance(required.op, ast.And):
            return [reading for value in required.values for reading in self.readings(value)]
        if isinstance(required, ast.UnaryOp) and isinstance(required.op, ast.Not):
            operand = required.operand
            if isinstance(operand, ast.BoolOp) and isinstance(operand.op, ast.Or):
                # `if a or b: pytest.fail(...)` requires `not a` and `not b`.
                return [
                    reading
                    for value in operand.values
                    for reading in self.readings(ast.UnaryOp(op=ast.Not(), operand=value))
                ]
        return [self._one(required)]

    def _tally(self, node: ast.expr) -> Tally | None:
        return self.tallies.get(node.id) if isinstance(node, ast.Name) else None

    def _over_tally(self, node: ast.expr) -> Tally | None:
        """The tally ``node`` is or iterates: ``ok``, ``(x < tol for x in errors)``."""
        tally = self._tally(node)
        if tally is not None:
            return tally
        if isinstance(node, ast.GeneratorExp | ast.ListComp | ast.SetComp):
            if computed(node.elt, set()):
                return None  # `all(run(x) for x in inputs)`: it computes, it is no reading
            generator = node.generators[0]
            found = self._tally(generator.iter)
            if found is None and _called(generator.iter) in ("enumerate", "zip"):
                assert isinstance(generator.iter, ast.Call)
                found = next(filter(None, map(self._tally, generator.iter.args)), None)
            return found
        return None

    def _one(self, required: ast.expr) -> Reading:
        if isinstance(required, ast.UnaryOp) and isinstance(required.op, ast.Not):
            return self._falsy(required.operand)
        if isinstance(required, ast.Compare):
            if len(required.ops) != 1:
                return AGGREGATE
            return self._compare(required.left, required.ops[0], required.comparators[0])
        name = _called(required)
        if name in ("all", "any") and isinstance(required, ast.Call) and len(required.args) == 1:
            tally = self._over_tally(required.args[0])
            if tally is None or not tally.collection:
                return AGGREGATE
            if name == "all":
                return EACH
            return AT_LEAST_ONE if tally.kind in ("flags", "values") else AGGREGATE
        quantity = self._quantity(required)
        if quantity is not None and quantity[0] in ("count", "list"):
            return AT_LEAST_ONE  # `assert found`: at least one iteration saw it
        return AGGREGATE

    def _falsy(self, operand: ast.expr) -> Reading:
        """``not X`` is required: ``if mismatches > 0: pytest.fail(...)`` requires
        ``mismatches <= 0``."""
        if isinstance(operand, ast.Compare) and len(operand.ops) == 1:
            negation = _NEGATED.get(type(operand.ops[0]))
            if negation is None:
                return AGGREGATE
            return self._compare(operand.left, negation(), operand.comparators[0])
        if _called(operand) == "any" and isinstance(operand, ast.Call) and len(operand.args) == 1:
            tally = self._over_tally(operand.args[0])
            return EACH if tally is not None and tally.collection else AGGREGATE
        quantity = self._quantity(operand)
        if quantity is not None and quantity[0] in ("count", "zeroable", "list"):
            return EACH
        return AGGREGATE

    def _quantity(self, node: ast.expr) -> tuple[Quantity, Tally] | None:
        tally = self._tally(node)
        if tally is not None:
            if tally.collection:
                return ("list", tally) if tally.kind in ("events", "items") else None
            if tally.kind == "events":
                return "count", tally
            return ("zeroable", tally) if tally.kind in ("items", "sum") else None
        name = _called(node)
        if not name or not isinstance(node, ast.Call) or len(node.args) != 1:
            return None
        argument = node.args[0]
        tally = self._tally(argument)
        if name == "len" and _called(argument) == "set" and isinstance(argument, ast.Call):
            inner = self._tally(argument.args[0]) if len(argument.args) == 1 else None
            if inner is not None and inner.kind in ("flags", "values", "distinct"):
                return "distinct", inner
            return None
        if tally is None or not tally.collection:
            return None
        kinds: dict[str, dict[str, Quantity]] = {
            "len": {"events": "count", "items": "zeroable", "distinct": "distinct"},
            "sum": {"flags": "count"},
            "max": {"flags": "max", "values": "max"},
            "min": {"flags": "min", "values": "min"},
        }
        quantity = kinds.get(name, {}).get(tally.kind)
        return (quantity, tally) if quantity is not None else None

    def _compare(self, left: ast.expr, operator: ast.cmpop, right: ast.expr) -> Reading:
        quantity, other = self._quantity(left), right
        if quantity is None:
            quantity, other = self._quantity(right), left
            operator = _FLIPPED.get(type(operator), type(operator))()
        if quantity is None:
            return AGGREGATE
        kind = quantity[0]
        if kind in ("max", "min"):
            if self.reads(other) or type(operator) not in _OPERATORS:
                return AGGREGATE
            below = isinstance(operator, ast.Lt | ast.LtE)
            # `max(errors) < tol`: every value below; `max(scores) > x`: one above.
            return EACH if below == (kind == "max") else AT_LEAST_ONE
        if kind == "list":
            if _empty(other):
                if isinstance(operator, ast.Eq):
                    return EACH
                return AT_LEAST_ONE if isinstance(operator, ast.NotEq) else AGGREGATE
            return AGGREGATE
        bound = self.bounds.bound(other)
        if bound is None:
            return UNRESOLVED if kind == "count" and not self.reads(other) else AGGREGATE
        if kind == "zeroable":
            return EACH if _zero(bound) and isinstance(operator, ast.Eq | ast.LtE) else AGGREGATE
        if kind == "distinct":
            one = bound == ("num", 1)
            return EACH if one and isinstance(operator, ast.Eq | ast.LtE) else AGGREGATE
        return _count_reading(operator, bound)


def _count_reading(operator: ast.cmpop, bound: Bound) -> Reading:
    """A count of iterations compared with a bound: every one, at least one, or a
    threshold. A lower bound reads as one on the passing iterations, an upper one
    on the failing iterations."""
    if isinstance(operator, ast.Eq):
        return EACH if _zero(bound) or bound == ("n",) else AGGREGATE
    if isinstance(operator, ast.NotEq):
        return AT_LEAST_ONE if _zero(bound) else AGGREGATE
    symbol = _OPERATORS.get(type(operator))
    if symbol is None:
        return AGGREGATE
    counted: Counted = "passes" if symbol in (">=", ">") else "failures"
    threshold = Threshold(counted, symbol, bound)
    try:
        every = threshold.follows_count and all(threshold.fails_at(n) == 1 for n in (1, 2, 7))
    except (ArithmeticError, ValueError, OverflowError):
        return UNRESOLVED
    return EACH if every else Reading("threshold", threshold)


def evaluates(bound: Bound, trials: int) -> bool:
    """Whether the bound has a value at ``trials`` (no division by zero, no overflow)."""
    try:
        evaluate(bound, trials)
    except (ArithmeticError, ValueError, OverflowError):
        return False
    return True
