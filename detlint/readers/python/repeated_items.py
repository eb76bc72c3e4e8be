"""A loop over a sequence written out and repeated: ``for N in (20, 50) * 3``.

CPython's ``test_threaded_import`` tries each of its thread counts three times,
checking the threads' errors on every pass. A single item repeated (``[None] * 5``)
is a plain trial loop of 5; several items repeated are cases, each tried as many
times as the sequence is repeated, so the trial count is the repeat count and the
figures are those of each item (a violation one item shows, the other may never).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class Repeated:
    """A written-out sequence of ``items`` items, repeated ``times`` (an expression)."""

    items: int
    times: ast.expr

    def describe(self, written: str, line: int) -> str:
        if self.items == 1:
            return f"`{written}` at line {line}"
        return (
            f"`{written}` at line {line} runs each of its {self.items} items that many "
            "times; the figures are per item"
        )


def repeated_items(iterable: ast.expr) -> Repeated | None:
    """``(a, b) * n`` or ``n * [a]``: the items written out and the repeat count."""
    if not (isinstance(iterable, ast.BinOp) and isinstance(iterable.op, ast.Mult)):
        return None
    for sequence, times in ((iterable.left, iterable.right), (iterable.right, iterable.left)):
        if not isinstance(sequence, ast.Tuple | ast.List) or not sequence.elts:
            continue
        if any(isinstance(item, ast.Starred) for item in sequence.elts):
            return None
        if isinstance(times, ast.Tuple | ast.List | ast.Constant) and not _is_count(times):
            return None
        return Repeated(len(sequence.elts), times)
    return None


def _is_count(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int)
        and not isinstance(node.value, bool)
    )
