"""What a loop keeps for a check after it: counters and collections it updates.

``mismatches += 1`` under an ``if`` counts the iterations that saw something; a
list that gets ``losses.append(loss)`` on every iteration holds one value per
iteration; ``total += loss`` adds them up. Which one a name is decides what a check
after the loop makes of it: ``assert mismatches == 0`` fails when any iteration
failed, ``assert mean(losses) < x`` checks one aggregate.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from detlint.readers.python.walk import SCOPES as _NESTED

TallyKind = Literal["events", "items", "flags", "values", "distinct", "sum", "steps"]
# events:   raised by one (or given one item) under a condition in the loop's own body,
#           or raised by a truth value: its count is how many iterations saw the event.
# items:    updated more than once an iteration, inside an inner loop, or by ``extend``
#           or a set's ``add``: only whether it is empty says whether any iteration did.
# flags:    a list given one truth value every iteration (``ok.append(a == b)``).
# values:   a list given one value every iteration (``losses.append(loss)``).
# distinct: a set given one value every iteration (``outputs.add(text)``).
# sum:      a number that adds up values (``total += loss``).
# steps:    a number raised by one every iteration: it ends at the loop's count.
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
# Calls whose value is a truth value: comparisons of what a trial computed.
BOOLEAN_CALLS = frozenset(
    {
        "equal",
        "allclose",
        "isclose",
        "array_equal",
        "array_equiv",
        "isinstance",
        "issubclass",
        "startswith",
        "endswith",
        "bool",
        "all",
        "any",
        "callable",
        "hasattr",
    }
)


@dataclass(frozen=True)
class Tally:
    name: str
    kind: TallyKind
    collection: bool  # a list or set (``append``, ``add``, ``extend``), else a number


def is_truth(value: ast.expr, truths: frozenset[str] = frozenset()) -> bool:
    """Whether an expression is a truth value: ``a == b``, ``not ok``, ``torch.equal(a, b)``,
    ``int(a != b)``, or a name in ``truths`` (the loop body assigns it one)."""
    if isinstance(value, ast.Name):
        return value.id in truths
    if isinstance(value, ast.Compare | ast.BoolOp):
        return True
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
        return True
    if isinstance(value, ast.Constant):
        return isinstance(value.value, bool)
    if isinstance(value, ast.Call):
        name = _name(value.func)
        if name == "int" and len(value.args) == 1:
            return is_truth(value.args[0], truths)
        return name in BOOLEAN_CALLS
    return False


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _updates(
    statements: list[ast.stmt], conditional: bool, nested: bool
) -> Iterator[tuple[ast.AST, bool, bool]]:
    """Every node of a loop body with whether it runs under a condition of the body and
    whether it runs inside an inner loop."""
    for statement in statements:
        if isinstance(statement, _NESTED):
            continue
        if isinstance(statement, ast.If):
            yield statement.test, conditional, nested
            yield from _updates(statement.body, True, nested)
            yield from _updates(statement.orelse, True, nested)
        elif isinstance(statement, _LOOPS):
            yield from _updates(statement.body, conditional, True)
            yield from _updates(statement.orelse, conditional, True)
        elif isinstance(statement, ast.Try):
            yield from _updates(statement.body, conditional, nested)
            for handler in statement.handlers:
                yield from _updates(handler.body, True, nested)
            yield from _updates(statement.orelse, True, nested)
            yield from _updates(statement.finalbody, conditional, nested)
        elif isinstance(statement, ast.With | ast.AsyncWith):
            yield from _updates(statement.body, conditional, nested)
        elif isinstance(statement, ast.Match):
            for case in statement.cases:
                yield from _updates(case.body, True, nested)
        else:
            for node in ast.walk(statement):
                if not isinstance(node, _NESTED):
                    yield node, conditional, nested


def _kind(
    node: ast.AST, conditional: bool, nested: bool, truths: frozenset[str]
) -> tuple[str, TallyKind, bool] | None:
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        if not isinstance(node.op, ast.Add):
            return None
        name, value = node.target.id, node.value
        if nested:
            return name, "items", False
        if isinstance(value, ast.Constant) and value.value == 1:
            return name, "events" if conditional else "steps", False
        if is_truth(value, truths):
            return name, "items" if conditional else "events", False
        return name, "sum", False
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.attr in ("append", "add", "extend")
    ):
        return None
    name, method = node.func.value.id, node.func.attr
    if nested or method == "extend" or (method == "add" and conditional):
        return name, "items", True
    if conditional:
        return name, "events", True
    if method == "add":
        return name, "distinct", True
    truth = len(node.args) == 1 and is_truth(node.args[0], truths)
    return name, "flags" if truth else "values", True


def tallies(body: list[ast.stmt]) -> dict[str, Tally]:
    """The names a loop body updates, each with what it holds after the loop. A name
    updated in more than one place counts more than one thing an iteration: only its
    emptiness is read, and one that mixes kinds is read as an aggregate."""
    updates = list(_updates(body, False, False))
    truths = frozenset(
        target.id
        for node, _, _ in updates
        if isinstance(node, ast.Assign) and is_truth(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    )
    found: dict[str, list[tuple[TallyKind, bool]]] = {}
    for node, conditional, nested in updates:
        kind = _kind(node, conditional, nested, truths)
        if kind is not None:
            found.setdefault(kind[0], []).append(kind[1:])
    result: dict[str, Tally] = {}
    for name, kinds in found.items():
        collection = kinds[0][1]
        if len(kinds) == 1:
            result[name] = Tally(name, kinds[0][0], collection)
        elif all(kind in ("events", "items") and held == collection for kind, held in kinds):
            result[name] = Tally(name, "items", collection)
        else:  # a number and a list at once, or values and events: read as one aggregate
            result[name] = Tally(name, "steps", collection)
    return result
