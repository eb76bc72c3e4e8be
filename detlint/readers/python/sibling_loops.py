"""Trial loops that follow each other in one block: their trials add up.

pyopencl's ``test_slice`` runs three ``for _i in range(20):`` loops one after
another, each on fresh random data with an assert: one attempt runs 60 trials, not
20. Loops in one statement list run one after the other on every attempt; loops in
different branches (``if``/``else``) do not add up, so only loops of the same list are
summed. A trial loop written straight in the body of another (``for i in range(1000):
for j in range(TEST_SIZE): ... check``) runs its trials on every pass of the outer
one: their counts multiply. One under an ``if`` of the outer body may run on some
passes only, and is left out of the product.
"""

from __future__ import annotations

import ast
import dataclasses
import math
from collections.abc import Callable, Iterator, Sequence

from detlint.readers.python.facts import TrialCount
from detlint.readers.python.module_index import Function
from detlint.readers.python.walk import SCOPES as _NESTED

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


def nested_product(
    loops: Sequence[tuple[ast.AST, TrialCount]], line_of: Callable[[ast.AST], int]
) -> TrialCount:
    """The first loop's count, multiplied by the counts of the trial loops written
    straight in its body (and in theirs): ``line_of`` gives the line a loop is named by."""
    outer, first = loops[0]
    chain = [(outer, first)]
    for loop, count in loops[1:]:
        body = getattr(chain[-1][0], "body", [])
        if count.threshold is None and count.env is None and any(s is loop for s in body):
            chain.append((loop, count))
    if len(chain) < 2 or first.threshold is not None or first.env is not None:
        return first
    counts = [count.count for _, count in chain]
    lines = [str(line_of(loop)) for loop, _ in chain]
    listed = ", ".join(lines[:-1]) + " and " + lines[-1]
    of = " x ".join(str(count) for count in counts)
    return dataclasses.replace(
        first,
        count=math.prod(counts),
        origin=f"nested loops of {of} at lines {listed}",
        nested=len(chain),
    )
