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
written out in the code (``for zoom in (0.2, 1.0, 4.0)``) checks a different case
each time, as a parametrization would: whether its cases are trials of one violation
is not in the code either, so its findings name it with its count of cases (and the
loops nested in it that check, ``2 \u00d7 3 cases``) and keep the figures per case.
A test with no such loop of its own names the first one in a function of its module
it calls and that returns nothing (a function that checks): its failures are the
test's.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable

from detlint.readers.python.loop_cases import case_count
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.named_loops import UncountedLoop
from detlint.readers.python.names import dotted
from detlint.readers.python.sibling_loops import block_of
from detlint.readers.python.trial_checks import TrialChecks, called, own_nodes, skips

Loop = ast.For | ast.AsyncFor | ast.comprehension
# Whether a loop's count is read (a ``range()`` bound detlint resolves) in the function
# it is in: those loops are the trial loops of ``TrialResolver``, counted or not by
# what it decides.
Counted = Callable[[Function, Loop], bool]
# The functions of the module a function calls, each with its name and how many calls.
Callees = Callable[[Function], list[tuple[str, Function, int]]]
_SHOWN = 40  # characters of an iterable a message quotes
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# The first word of a call whose name says it checks; calls that run a command instead.
_CHECK_WORDS = frozenset({"check", "compare", "verify", "validate"})
_NOT_CHECKS = frozenset({"check_output", "check_call"})


def uncounted_loop(
    index: ModuleIndex, function: Function, counted: Counted, callees: Callees
) -> UncountedLoop | None:
    """The first loop of the test's own body (in source order) whose iterations each
    can fail the test and whose count as trials detlint does not read; else the first
    such loop of a function of the module (or a method of its class) the test calls."""
    found = _own_loop(index, function, counted)
    if found is not None:
        return found
    for name, helper, times in callees(function):
        if _returns_value(helper):
            continue
        found = _own_loop(index, helper, counted)
        if found is not None:
            return dataclasses.replace(found, helper=name, calls=times)
    return None


def _own_loop(index: ModuleIndex, function: Function, counted: Counted) -> UncountedLoop | None:
    """The first loop of a function's own body whose iterations each can fail it."""
    if "for " not in index.text(function):
        return None
    nodes = own_nodes([node for node in function.body if not isinstance(node, _NESTED)])
    loops: list[Loop] = [node for node in nodes if isinstance(node, Loop)]
    checks = _NamedChecks(index, function)
    for loop in sorted(loops, key=lambda node: (node.iter.lineno, node.iter.col_offset)):
        if counted(function, loop):
            continue
        found = _named(index, function, loop, checks)
        if found is not None:
            return _with_following(index, function, loop, found, counted)
    return None


def _with_following(
    index: ModuleIndex, function: Function, loop: Loop, found: UncountedLoop, counted: Counted
) -> UncountedLoop:
    """A loop with the loops of the same kind (cases, or iterations) that run before or
    after it in its block: each case of each is checked on every attempt."""
    block = block_of(function, loop)
    if block is None:
        return found
    checks = _NamedChecks(index, function)
    following: list[UncountedLoop] = []
    for statement in block:
        if statement is loop or not isinstance(statement, ast.For | ast.AsyncFor):
            continue
        if counted(function, statement):
            continue
        other = _named(index, function, statement, checks)
        if other is not None and (other.cases, other.over_range) == (
            found.cases,
            found.over_range,
        ):
            following.append(other)
    if not following:
        return found
    parts = sorted([found, *following], key=lambda part: part.line)
    return dataclasses.replace(parts[0], following=tuple(parts[1:]))


def uncounted_at(index: ModuleIndex, function: Function, loop: Loop) -> UncountedLoop | None:
    """``loop`` as an uncounted loop, when each of its iterations can fail the test."""
    return _named(index, function, loop, _NamedChecks(index, function))


def _named(
    index: ModuleIndex, function: Function, loop: Loop, checks: _NamedChecks
) -> UncountedLoop | None:
    """A loop whose iterations each can fail the function, as a finding names it."""
    if _stops_or_catches(loop, checks) or _only_skips(loop, checks):
        return None
    if not _each_fails(checks, loop):
        return None
    chain = _chain(checks, loop)
    counts = [case_count(index, function, node.iter) for node in chain]
    if 0 in counts:
        return None  # a loop over nothing checks nothing
    if None in counts:
        chain, counts = [loop], counts[:1]
    cases = None not in counts and not all(_over_range(node.iter) for node in chain)
    known = tuple(count for count in counts if count is not None)
    if any(_skips(node) for node in chain):
        known = ()  # ``continue`` passes over some cases: their count is not known
    line = index.original_line(loop.iter.lineno)
    return UncountedLoop(
        _shown(_written_text(index, loop.iter)),
        line,
        _over_range(loop.iter),
        cases=cases,
        counts=known,
        nested=tuple(
            (_shown(_written_text(index, node.iter)), index.original_line(node.iter.lineno))
            for node in chain[1:]
        ),
    )


class _NamedChecks(TrialChecks):
    """A loop's checks, with calls whose names say they check (``check_consistency``,
    ``compare_optimizer``, ``transfer_and_assert_path``): functions of other modules
    detlint does not read, whose failures fail the test. Used only to name a loop, not
    to count trials: a name is no proof."""

    def checks(self, node: ast.AST, depth: int = 0) -> bool:
        if super().checks(node, depth):
            return True
        name = called(node)
        words = name.lower().split("_")
        return name not in _NOT_CHECKS and (words[0] in _CHECK_WORDS or "assert" in words)


def _only_skips(loop: Loop, checks: _NamedChecks) -> bool:
    """A loop that can end the test only as skipped (``pytest.skip`` when a solver is
    missing) and holds no check proper (an ``assert``, an assertion call, a function
    of the module that asserts): a call named like a check there (``check(name)``
    picking the solver a case needs) decides the skip, it checks nothing."""
    if isinstance(loop, ast.comprehension):
        return False
    nodes = own_nodes(loop.body)
    return any(skips(node) for node in nodes) and not any(
        TrialChecks.checks(checks, node) for node in nodes
    )


def _returns_value(function: Function) -> bool:
    """A function that returns (or yields) a value computes it for the test to check:
    the checks in its loops guard the computation (``assert not np.isnan(loss)`` in a
    training loop), they are not the cases the test checks."""
    return any(
        isinstance(node, ast.Return | ast.Yield | ast.YieldFrom)
        and getattr(node, "value", None) is not None
        for node in own_nodes(function.body)
    )


def _each_fails(checks: TrialChecks, loop: Loop) -> bool:
    """Whether each iteration of a loop can fail the function on its own."""
    length = ast.Call(func=ast.Name("len", ast.Load()), args=[loop.iter], keywords=[])
    verdict = checks.each_iteration(loop, length)
    return verdict.trial and verdict.threshold is None


def _chain(checks: TrialChecks, loop: Loop) -> list[Loop]:
    """The loop and the loops nested in it whose iterations check, while each holds one
    such loop: ``for dtype in dtypes: for shape in shapes: check(...)``."""
    chain: list[Loop] = [loop]
    while isinstance(loop, ast.For | ast.AsyncFor):
        inner = [
            node
            for node in _direct_loops(loop)
            if not _stops_or_catches(node, checks) and _each_fails(checks, node)
        ]
        if len(inner) != 1:
            break
        loop = inner[0]
        chain.append(loop)
    return chain


def _direct_loops(loop: ast.For | ast.AsyncFor) -> list[ast.For | ast.AsyncFor]:
    """The ``for`` loops in a loop's body that no other loop of that body holds."""
    loops = [node for node in own_nodes(loop.body) if isinstance(node, ast.For | ast.AsyncFor)]
    held = {id(inner) for outer in loops for inner in own_nodes(outer.body) if inner is not outer}
    return [node for node in loops if id(node) not in held]


def _written_text(index: ModuleIndex, iterable: ast.expr) -> str:
    """An iterable as written, a tuple in the parentheses its items are written in."""
    text = index.text(iterable)
    return f"({text})" if isinstance(iterable, ast.Tuple) and not text.startswith("(") else text


def _over_range(iterable: ast.expr) -> bool:
    return isinstance(iterable, ast.Call) and dotted(iterable.func) == "range"


def _stops_or_catches(loop: Loop, checks: TrialChecks) -> bool:
    """A loop that breaks off, or whose checks are caught in it: a retry or a poll. A
    ``try`` around what only builds a case (``np.result_type(a, b)``) catches none."""
    if isinstance(loop, ast.comprehension):
        return False
    for node in own_nodes(loop.body):
        if isinstance(node, ast.Break):
            return True
        if (
            isinstance(node, ast.Try)
            and node.handlers
            and any(checks.checks(inner) for inner in own_nodes(node.body))
        ):
            return True
        if isinstance(node, ast.With | ast.AsyncWith) and any(
            ast.dump(item.context_expr) == ast.dump(loop.target) for item in node.items
        ):
            return True
    return False


def _skips(loop: Loop) -> bool:
    """Whether a loop's own ``continue`` passes over some of its items."""
    if isinstance(loop, ast.comprehension):
        return bool(loop.ifs)
    nodes = own_nodes(loop.body)
    inner = {
        id(node)
        for outer in nodes
        if isinstance(outer, ast.For | ast.AsyncFor | ast.While)
        for node in own_nodes([*outer.body, *outer.orelse])
    }
    return any(isinstance(node, ast.Continue) and id(node) not in inner for node in nodes)


def _shown(text: str) -> str:
    """An iterable as a message quotes it: its first line, cut to ``_SHOWN`` characters."""
    first = " ".join(text.split())
    return first if len(first) <= _SHOWN else first[: _SHOWN - 3] + "..."
