"""A loop whose iterations each can fail a test, as a finding names it when detlint
cannot count its trials: the loop (with those nested in it and those that follow it
in its block), what it walks, and how many items, when the code writes them out."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class UncountedLoop:
    """A loop whose iterations can each fail the test, over items detlint cannot count.

    ``for s in samples.T: assert kstest(s).pvalue > 0.05`` checks each column of an
    array a fixture sizes; ``for _ in range(n)`` with ``n`` read from nowhere detlint
    follows runs trials of unknown number. Whether such items are trials of one
    violation or different checks is no more decidable than their count, so the
    figures stay those of one check, and a finding names the loop and says they are
    per item checked rather than that the test has no loop.
    """

    iterable: str  # as written: "samples.T", "range(n)"
    line: int
    over_range: bool  # ``range(...)``: a message speaks of iterations, not items
    # Items written out in the code (``for dtype in ("float16", "float32")``): cases,
    # each checked as a parametrization would be, not trials of one violation.
    cases: bool = False
    # How many items each loop walks, this one first, then the loops nested in it
    # whose iterations check too; empty when detlint cannot count them.
    counts: tuple[int, ...] = ()
    # The loops nested in it (as written, with their lines) the counts multiply by.
    nested: tuple[tuple[str, int], ...] = ()
    helper: str = ""  # the function of the module the loop is in, when not the test
    calls: int = 1  # how many times the test calls that function
    # Loops of the same kind that follow this one in its block: their items add up.
    following: tuple[UncountedLoop, ...] = ()

    def describe(self) -> str:
        item = "case" if self.cases else "iteration" if self.over_range else "item"
        parts = [self, *self.following]
        loops = [loop for part in parts for loop in ((part.iterable, part.line), *part.nested)]
        named = [f"`{iterable}` (line {line})" for iterable, line in loops]
        listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        where = f"the loop{'s' if len(named) > 1 else ''} over {listed}"
        if self.helper:
            called = f", which the test calls {self.calls} times," if self.calls > 1 else ""
            where += f" in `{self.helper}`{called}"
        verb, own = ("check", "their") if len(named) > 1 else ("checks", "its")
        if any(not part.counts for part in parts):
            return (
                f"{where} {verb} each {item}; "
                f"detlint cannot count them, so the figures are per {item} checked"
            )
        counts = sum(math.prod(part.counts) for part in parts)
        if counts == 1:
            return f"{where} {verb} one {item}; the figures are those of that {item}"
        total = " + ".join(" \u00d7 ".join(str(count) for count in part.counts) for part in parts)
        if len(parts) > 1:
            total += f" = {counts}"
        return f"{where} {verb} each of {own} {total} {item}s; the figures are per {item} checked"
