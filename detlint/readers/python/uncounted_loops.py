"""Loops in a test whose iterations can each fail it, over items detlint cannot count.

``for s in samples.T:`` (the columns of an array a fixture sizes) with ``assert p >
0.05`` on each, or ``for _ in range(n)`` with ``n`` from a place detlint does not
follow: each iteration can fail the test, yet how many there are is not in the code,
and whether they are trials of one violation or different checks is not either.
Saying "no trial loop" there would be wrong; counting them is impossible. So the
test keeps the figures of one check and its findings name the loop.

A loop that stops early (``break``), catches its own failures (a check in a ``try``
with handlers, ``with attempt:`` over the loop's items) retries or polls: a failing
iteration does not fail the test, and the loop is no such loop. A loop over items
written out in the test (``for zoom in (0.2, 1.0, 4.0)``) checks a different case
each time, as a parametrization would: its count is no secret, and it runs no
trials of one violation either. Loops of functions the test defines are theirs.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from detlint.readers.python.facts import UncountedLoop
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.names import dotted
from detlint.readers.python.trial_checks import TrialChecks, own_nodes

Loop = ast.For | ast.AsyncFor | ast.comprehension
# Whether a loop's count is read (a ``range()`` bound detlint resolves): those loops
# are the trial loops of ``TrialResolver``, counted or not by what it decides.
Counted = Callable[[Loop], bool]
_SHOWN = 40  # characters of an iterable a message quotes
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Calls that pass the items of what they are given on: as many items, still written out.
_PASSING = frozenset({"enumerate", "zip", "sorted", "reversed", "list", "tuple", "set"})


def uncounted_loop(
    index: ModuleIndex, function: Function, counted: Counted
) -> UncountedLoop | None:
    """The first loop of the test's own body (in source order) whose iterations each
    can fail the test and whose count detlint does not read."""
    if "for " not in index.text(function):
        return None
    nodes = own_nodes([node for node in function.body if not isinstance(node, _NESTED)])
    loops: list[Loop] = [node for node in nodes if isinstance(node, Loop)]
    checks = TrialChecks(index, function)
    for loop in sorted(loops, key=lambda node: (node.iter.lineno, node.iter.col_offset)):
        if counted(loop) or _written(loop.iter) or _stops_or_catches(loop):
            continue
        length = ast.Call(func=ast.Name("len", ast.Load()), args=[loop.iter], keywords=[])
        verdict = checks.each_iteration(loop, length)
        if verdict.trial and verdict.threshold is None:
            over_range = isinstance(loop.iter, ast.Call) and dotted(loop.iter.func) == "range"
            line = index.original_line(loop.iter.lineno)
            return UncountedLoop(_shown(index.text(loop.iter)), line, over_range)
    return None


def _written(iterable: ast.expr) -> bool:
    """Items written out in the code: ``(False, True)``, ``enumerate(["a", "b"])``,
    ``zip([1, 2], [3, 4])``."""
    if isinstance(iterable, ast.List | ast.Tuple | ast.Set | ast.Dict):
        return True
    if isinstance(iterable, ast.Call) and dotted(iterable.func) in _PASSING:
        return bool(iterable.args) and all(_written(arg) for arg in iterable.args)
    return False


def _stops_or_catches(loop: Loop) -> bool:
    """A loop that breaks off, or whose checks are caught in it: a retry or a poll."""
    if isinstance(loop, ast.comprehension):
        return False
    for node in own_nodes(loop.body):
        if isinstance(node, ast.Break):
            return True
        if isinstance(node, ast.Try) and node.handlers:
            return True
        if isinstance(node, ast.With | ast.AsyncWith) and any(
            ast.dump(item.context_expr) == ast.dump(loop.target) for item in node.items
        ):
            return True
    return False


def _shown(text: str) -> str:
    """An iterable as a message quotes it: its first line, cut to ``_SHOWN`` characters."""
    first = " ".join(text.split())
    return first if len(first) <= _SHOWN else first[: _SHOWN - 3] + "..."
