"""How many instances of a parametrized test a guarded knob in its body reaches.

``if direction == "random" and scale == "weight_svd": pytest.skip(...)`` in a test
under two parametrize tables of four values skips one instance of sixteen, not all
of them. A guard of a knob (see ``guards``) that reads the test's parametrize
arguments decides, instance by instance, where the knob applies: where it is a plain
comparison of those arguments with literals (``==``, ``!=``, ``in``, ``not in``,
``is None``, joined by ``and``/``or``/``not``) and the tables are written out, the
instances are counted; otherwise the knob covers "the instances where" the guard
holds, a number detlint does not give. Guards that read no argument (the platform)
are where the finding already says the knob applies.
"""

from __future__ import annotations

import ast
import itertools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from detlint.readers.python.facts import ArgValue, Dynamic, Mark, Parametrized
from detlint.readers.python.guards import negated, quoted
from detlint.readers.python.module_index import Function
from detlint.readers.python.names import NotLiteral, literal
from detlint.readers.python.param_facts import Covered
from detlint.readers.python.walk import SCOPES as _NESTED

Text = Callable[[ast.AST], str]
_UNKNOWN = object()


def reaching(
    function: Function,
    knobs: Sequence[Mark],
    tables: Sequence[Parametrized],
    instances: int | None,
    text: Text,
) -> list[Mark]:
    """The knobs of a test's body, each with the instances it reaches where its guards
    read the test's parametrize arguments."""
    if not tables:
        return list(knobs)
    found = []
    for mark in knobs:
        reach = covered(function, mark, tables, instances, text) if mark.scope == "body" else None
        found.append(mark if reach is None else replace(mark, covered=reach))
    return found


def covered(
    function: Function,
    mark: Mark,
    tables: Sequence[Parametrized],
    instances: int | None,
    text: Text,
) -> Covered | None:
    """The instances ``mark`` reaches, when one of its guards reads a parametrize
    argument of the test; None when none does (it reaches every instance)."""
    named = [table for table in tables if table.names]
    arguments = {name for table in named for name in table.names or ()}
    if not mark.guards or not arguments:
        return None
    phrases = _phrases(function, text)
    reading = [g for g in mark.guards if _reads(g, phrases, arguments)]
    if not reading:
        return None
    where = " and ".join(reading)
    clauses = [phrases.get(g) for g in reading]
    if instances is None or _rebound(function, arguments) or any(c is None for c in clauses):
        return Covered(None, instances, where)
    used = [t for t in named if any(_reads_names(c, set(t.names or ())) for c in clauses if c)]
    if any(table.rows is None for table in used):
        return Covered(None, instances, where)
    holds = 0
    for combination in itertools.product(*(table.rows or () for table in used)):
        values = {
            name: value
            for table, row in zip(used, combination, strict=True)
            for name, value in zip(table.names or (), row, strict=True)
        }
        truths = [(_truth(expr, values), positive) for expr, positive in filter(None, clauses)]
        if any(truth is None for truth, _ in truths):
            return Covered(None, instances, where)
        holds += all(truth == positive for truth, positive in truths)
    rest = instances // max(math.prod(len(t.rows or ()) for t in used), 1)
    return Covered(holds * rest, instances, where)


def _phrases(function: Function, text: Text) -> dict[str, tuple[ast.expr, bool]]:
    """Each guard phrase a condition of the function makes, with the condition and
    whether the phrase says it holds (``"`C`"``) or not (``"not `C`"``)."""
    found: dict[str, tuple[ast.expr, bool]] = {}
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        tests: list[ast.expr] = []
        if isinstance(node, ast.If | ast.IfExp | ast.While):
            tests.append(node.test)
        elif isinstance(node, ast.BoolOp):
            tests += node.values
        for test in tests:
            found.setdefault(quoted(text(test)), (test, True))
            found.setdefault(negated(text(test)), (test, False))
        stack.extend(ast.iter_child_nodes(node))
    return found


def _reads(guard: str, phrases: dict[str, tuple[ast.expr, bool]], names: set[str]) -> bool:
    clause = phrases.get(guard)
    if clause is not None:
        return _reads_names(clause, names)
    return any(re.search(rf"\b{re.escape(name)}\b", guard) for name in names)


def _reads_names(clause: tuple[ast.expr, bool], names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(clause[0]))


def _rebound(function: Function, names: set[str]) -> bool:
    """Whether the function assigns one of the arguments: a guard then reads a value
    the table did not give."""
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id in names:
            return True
    return False


def _truth(node: ast.expr, values: dict[str, ArgValue]) -> bool | None:
    """Whether a condition holds for one instance's values; None where it cannot be told."""
    if isinstance(node, ast.BoolOp):
        parts = [_truth(value, values) for value in node.values]
        if any(part is None for part in parts):
            return None
        return all(parts) if isinstance(node.op, ast.And) else any(parts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _truth(node.operand, values)
        return None if inner is None else not inner
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right = _operand(node.left, values), _operand(node.comparators[0], values)
        if left is _UNKNOWN or right is _UNKNOWN:
            return None
        return _compare(node.ops[0], left, right)
    if isinstance(node, ast.Name) and node.id in values:
        value = values[node.id]
        return None if isinstance(value, Dynamic) else bool(value)
    return None


def _operand(node: ast.expr, values: dict[str, ArgValue]) -> object:
    if isinstance(node, ast.Name):
        value = values.get(node.id, _UNKNOWN)
        return _UNKNOWN if isinstance(value, Dynamic) else value
    if isinstance(node, ast.Set):
        items = [literal(element) for element in node.elts]
        if any(isinstance(item, NotLiteral | Dynamic) for item in items):
            return _UNKNOWN
        return tuple(items)
    found = literal(node)
    return _UNKNOWN if isinstance(found, NotLiteral | Dynamic) else found


def _compare(op: ast.cmpop, left: object, right: object) -> bool | None:
    if isinstance(op, ast.Eq | ast.NotEq):
        if type(left) is not type(right) and not {type(left), type(right)} <= {int, float}:
            equal = False
        else:
            equal = left == right
        return equal if isinstance(op, ast.Eq) else not equal
    if isinstance(op, ast.Is | ast.IsNot) and right is None:
        return (left is None) == isinstance(op, ast.Is)
    if isinstance(op, ast.In | ast.NotIn) and isinstance(right, tuple):
        inside = any(type(left) is type(item) and left == item for item in right)
        return inside == isinstance(op, ast.In)
    return None
