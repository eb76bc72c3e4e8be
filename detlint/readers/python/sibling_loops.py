"""Trial loops that follow each other in one block: their trials add up.

pyopencl's ``test_slice`` runs three ``for _i in range(20):`` loops one after
another, each on fresh random data with an assert: one attempt runs 60 trials, not
20. Loops in one statement list run one after the other on every attempt; loops in
different branches (``if``/``else``) or nested in each other do not add up, so only
loops of the same list are summed.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator, Sequence

from detlint.readers.python.facts import TrialCount
from detlint.readers.python.module_index import Function

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_BLOCKS = ("body", "orelse", "finalbody")


def block_of(function: Function, node: ast.AST) -> list[ast.stmt] | None:
    """The statement list of the function that holds ``node`` as one of its statements."""
    for block in _blocks(function.body):
        if any(statement is node for statement in block):
            return block
    return None


def _blocks(statements: list[ast.stmt]) -> Iterator[list[ast.stmt]]:
    """Every statement list under ``statements``, not entering nested functions."""
    yield statements
    for statement in statements:
        if isinstance(statement, _NESTED):
            continue
        for name in _BLOCKS:
            inner = getattr(statement, name, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                yield from _blocks(inner)
        for handler in getattr(statement, "handlers", ()):
            yield from _blocks(handler.body)
        for case in getattr(statement, "cases", ()):
            yield from _blocks(case.body)


def siblings(
    block: Sequence[ast.stmt], loops: Sequence[tuple[ast.AST, TrialCount]]
) -> list[tuple[ast.AST, TrialCount]]:
    """The counted loops that are statements of ``block``, in source order."""
    held = {id(statement) for statement in block}
    return [(loop, count) for loop, count in loops if id(loop) in held]


def summed(parts: Sequence[tuple[int, TrialCount]]) -> TrialCount:
    """One trial count for loops that follow each other: ``(line, count)`` for each,
    each a literal bound any failing trial of which fails the test."""
    first = parts[0][1]
    counts = [count.count for _, count in parts]
    lines = [str(line) for line, _ in parts]
    listed = ", ".join(lines[:-1]) + " and " + lines[-1]
    if len(set(counts)) == 1:
        of = f"{len(parts)} loops of {counts[0]}"
    else:
        values = [str(count) for count in counts]
        of = f"{len(parts)} loops, of " + ", ".join(values[:-1]) + " and " + values[-1] + ","
    return dataclasses.replace(
        first, count=sum(counts), origin=f"{of} at lines {listed}", loops=len(parts)
    )
