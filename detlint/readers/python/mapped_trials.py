"""Trials a test runs by mapping a checking function over a range.

cudf's ``test_disable_pandas_accelerator_multi_threaded`` runs ``for _ in
executor.map(per_thread_work, range(num_threads * 10)): pass``, where
``per_thread_work`` is a function of the module that asserts (or one the test defines in its body,
as CPython's ``test_context_threads_1`` maps its nested ``sub``): each of the 200 calls
can fail the test, as each iteration of a trial loop can. The results must be
consumed for a failure to reach the test (an executor's ``map`` raises a call's error
when its result is read, the builtin ``map`` runs nothing until then), so only a map
that a ``for`` loop walks or that ``list``, ``tuple``, ``set``, ``all`` or ``any``
read counts.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable

from detlint.readers.python.facts import TrialCount
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.named_loops import UncountedLoop
from detlint.readers.python.names import dotted
from detlint.readers.python.trial_checks import holds_checks

# What resolves a range's bound to a trial count in a function, at a depth.
Bound = Callable[[ast.expr, Function, int], TrialCount | None]
_READERS = frozenset({"list", "tuple", "set", "all", "any"})


def mapped_trials(index: ModuleIndex, function: Function, bound: Bound) -> TrialCount | None:
    """The trial count of the first consumed map of a checking function of the module
    over ``range(N)``; with N unresolved, no count and the map named."""
    if "map(" not in index.text(function):
        return None
    for call in _consumed_maps(index, function):
        checker, iterable = call.args
        if not isinstance(checker, ast.Name):
            continue
        helper = _defined_in(function, checker.id) or index.functions.get(checker.id)
        if helper is None or helper is function or not holds_checks(index, helper):
            continue
        if not (isinstance(iterable, ast.Call) and dotted(iterable.func) == "range"):
            continue
        args = iterable.args
        limit = args[0] if len(args) == 1 else None
        count = _resolved(limit, function, bound) if limit is not None else None
        line = index.original_line(call.lineno)
        if count is not None and count.env is None:
            origin = f"`{checker.id}` mapped over `{index.text(iterable)}` at line {line}"
            return dataclasses.replace(count, origin=origin, mapped=checker.id)
        if count is not None:
            return count
        uncounted = UncountedLoop(index.text(call), line, over_range=True)
        return TrialCount(1, None, origin=uncounted.describe(), uncounted=uncounted)
    return None


def _defined_in(function: Function, name: str) -> Function | None:
    """A function the test defines in its own body (``def sub(num): ...`` mapped by
    ``tp.map(sub, range(10))``), which a name there means before the module's."""
    for statement in function.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and statement.name == name:
            return statement
    return None


def _resolved(limit: ast.expr, function: Function, bound: Bound) -> TrialCount | None:
    """A range's bound as a trial count; ``num_threads * 10`` (a product or sum of
    counts written in the code) too, with no environment knob (raising one of its
    terms is not raising the count)."""
    if not (isinstance(limit, ast.BinOp) and isinstance(limit.op, ast.Mult | ast.Add)):
        return bound(limit, function, 0)
    left, right = (_resolved(side, function, bound) for side in (limit.left, limit.right))
    if left is None or right is None or left.env is not None or right.env is not None:
        return None
    value = left.count * right.count if isinstance(limit.op, ast.Mult) else left.count + right.count
    return dataclasses.replace(left, count=value)


def _consumed_maps(index: ModuleIndex, function: Function) -> list[ast.Call]:
    """``map(f, xs)`` or ``pool.map(f, xs)`` calls whose results the function reads."""
    found: list[ast.Call] = []
    for node in index.body(function, (ast.For, ast.AsyncFor, ast.Call)):
        if isinstance(node, ast.For | ast.AsyncFor):
            candidate: ast.expr | None = node.iter
        elif isinstance(node, ast.Call) and dotted(node.func) in _READERS and node.args:
            candidate = node.args[0]
        else:
            continue
        if (
            isinstance(candidate, ast.Call)
            and _is_map(candidate.func)
            and len(candidate.args) == 2
            and not candidate.keywords
        ):
            found.append(candidate)
    return sorted(found, key=lambda call: (call.lineno, call.col_offset))


def _is_map(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "map") or (
        isinstance(func, ast.Attribute) and func.attr in ("map", "imap")
    )
