"""How many items a loop walks, when the code writes them out.

``for dtype in ('float16', 'float32')`` walks 2 cases, ``for a, b in
itertools.product(shapes, [True, False])`` with ``shapes = [(2,), (3, 4)]`` 4, and
``for i in range(1, 5)`` 4 iterations. A finding that names such a loop can then say
how many cases its figures are per; where a list comes from a call, a fixture or a
file, the count is unknown and the finding says so instead.
"""

from __future__ import annotations

import ast
import math

from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.names import dotted, literal

_DEPTH = 4  # names followed to the list they are bound to
# Calls that pass on as many items as they are given.
_SAME = frozenset({"enumerate", "sorted", "reversed", "list", "tuple"})
_PRODUCTS = frozenset({"itertools.product", "product"})
_MUTATING = frozenset({"append", "extend", "insert", "add", "update", "pop", "remove"})
_REBINDING = (ast.For, ast.AsyncFor, ast.comprehension, ast.AugAssign)


def case_count(
    index: ModuleIndex, function: Function, iterable: ast.expr, depth: int = 0
) -> int | None:
    """How many items ``iterable`` yields, when they are written out in the function
    or the module (through names bound once); None when that is not in the code."""
    if depth > _DEPTH:
        return None
    if isinstance(iterable, ast.List | ast.Tuple):
        if any(isinstance(item, ast.Starred) for item in iterable.elts):
            return None
        return len(iterable.elts)
    if isinstance(iterable, ast.Dict):
        return len(iterable.keys) if all(key is not None for key in iterable.keys) else None
    if isinstance(iterable, ast.Name):
        bound = _bound_once(index, function, iterable.id)
        return None if bound is None else case_count(index, function, bound, depth + 1)
    if not isinstance(iterable, ast.Call) or any(arg.arg is None for arg in iterable.keywords):
        return None
    name = dotted(iterable.func)
    if name == "range":
        return _range_length(index, function, iterable.args)
    counts = [case_count(index, function, arg, depth + 1) for arg in iterable.args]
    if not counts or any(count is None for count in counts):
        return None
    known = [count for count in counts if count is not None]
    if name in _SAME and len(known) == 1 and not iterable.keywords:
        return known[0]
    if name == "zip" and not iterable.keywords:
        return min(known)
    if name in _PRODUCTS:
        repeat = [keyword.value for keyword in iterable.keywords if keyword.arg == "repeat"]
        times = literal(repeat[0]) if repeat else 1
        if isinstance(times, int) and not isinstance(times, bool) and times >= 0:
            return int(math.prod(known) ** times)
    return None


def _range_length(index: ModuleIndex, function: Function, args: list[ast.expr]) -> int | None:
    """The length of ``range(...)`` with bounds written as numbers or names bound to them."""
    values = [_number(index, function, arg) for arg in args]
    numbers = [value for value in values if value is not None]
    if not 1 <= len(args) <= 3 or len(numbers) != len(args):
        return None
    if len(numbers) == 3 and numbers[2] == 0:
        return None
    return len(range(*numbers))


def _number(index: ModuleIndex, function: Function, node: ast.expr, depth: int = 0) -> int | None:
    value = literal(node)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(node, ast.Name) and depth < _DEPTH:
        bound = _bound_once(index, function, node.id)
        return None if bound is None else _number(index, function, bound, depth + 1)
    return None


def _bound_once(index: ModuleIndex, function: Function, name: str) -> ast.expr | None:
    """The value a name is bound to once in the function (else in the module); None
    when it is bound more than once, in a loop, as a parameter, or changed in place."""
    if any(arg.arg == name for arg in ast.walk(function.args) if isinstance(arg, ast.arg)):
        return None
    values: list[ast.expr] = []
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            if any(isinstance(target, ast.Name) and target.id == name for target in node.targets):
                values.append(node.value)
        elif isinstance(node, _REBINDING) and _binds(node.target, name):
            return None
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in _MUTATING
            and isinstance(node.value, ast.Name)
            and node.value.id == name
        ):
            return None  # ``cases.append(x)``: the list the loop walks grows
    if len(values) == 1:
        return values[0]
    if values:
        return None
    return index.assignments.get(name)


def _binds(target: ast.AST, name: str) -> bool:
    return any(isinstance(inner, ast.Name) and inner.id == name for inner in ast.walk(target))
