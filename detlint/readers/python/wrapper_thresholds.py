"""Whether a decorator that wants several passes behaves as the flaky package's
``flaky(max_runs, min_passes)``.

A retry calls a passing test once. A decorator that calls it again wants several
passes (``while passes < min_passes``, cupy's ``repeat_with_success_at_least(10, 3)``),
and how often it reports a failure depends on the order of passes and failures, which
an attempt count does not capture. flaky's rule does: run until ``min_passes`` runs
passed (the test passes) or until ``max_runs - min_passes + 1`` failed (it fails).
When the decorator calls an always-failing test F times and an always-passing one K
times, the only such rule it can follow has ``min_passes`` K and ``max_runs`` F + K - 1;
the decorator is read again with sequences of passes and failures (passes first, then
failures; failures first, then passes; alternating; every sequence of a short run), and
only when it ends as flaky would, after as many calls, every time, is it read as that
threshold. With F = 1 every run must pass: a repeat, no retry (``max_runs`` =
``min_passes``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from detlint.readers.python.facts import Argument
from detlint.readers.python.module_index import Function, ModuleIndex
from detlint.readers.python.wrapper_results import Result, result
from detlint.readers.python.wrapper_runs import PASSING, Outcomes, Run

MAX_CHECKED_RUNS = 100  # a threshold with more runs is not checked (and gets no figure)
_EVERY_SEQUENCE = 6  # runs up to which every sequence of passes and failures is read


@dataclass(frozen=True)
class Passes:
    """What a decorator does to a passing test, decided as a failing run was."""

    calls: int  # calls of an always-passing test (until the read stopped)
    max_runs: int | None  # flaky's max_runs it behaves as, with min_passes = calls
    origins: frozenset[str]  # where the numbers read while passing came from
    bound: str = ""  # the code that says how often, where the read stopped at it


def flaky_ends(max_runs: int, min_passes: int, outcomes: Outcomes) -> tuple[int, bool]:
    """How flaky(max_runs, min_passes) ends on ``outcomes``: its calls, and whether it
    reports a failure."""
    passes = failures = 0
    while True:
        if outcomes.passes(passes + failures):
            passes += 1
        else:
            failures += 1
        if passes >= min_passes:
            return passes + failures, False
        if failures > max_runs - min_passes:
            return passes + failures, True


def sequences(max_runs: int, min_passes: int) -> Iterator[Outcomes]:
    """The sequences of passes and failures a candidate threshold is checked on."""
    for passed in range(1, min_passes):
        yield Outcomes((True,) * passed)
    for failed in range(1, max_runs - min_passes + 1):
        yield Outcomes((False,) * failed, then=True)
    yield Outcomes((True, False) * max_runs)
    yield Outcomes((False, True) * max_runs)
    if max_runs <= _EVERY_SEQUENCE:
        for sequence in itertools.product((True, False), repeat=max_runs):
            yield Outcomes(sequence)


@dataclass(frozen=True)
class Read:
    """One decorator, applied one way, with its unknown conditions decided as a failing
    run decided them."""

    index: ModuleIndex
    function: Function
    arguments: Sequence[Argument]
    bare: bool
    failure: str
    decisions: dict[int, bool]

    def run(self, outcomes: Outcomes) -> tuple[Run, Result]:
        run = Run(self.index, dict(self.decisions), self.failure, outcomes)
        return run, result(run, self.function, self.arguments, self.bare)

    def ends(self, outcomes: Outcomes) -> tuple[int, bool] | None:
        """The calls of the run on ``outcomes`` and whether it reports a failure (None
        when it ends otherwise: unread, or through a retry library)."""
        found = self.run(outcomes)[1]
        return (found.calls, found.escapes) if found.kind in ("plain", "retry") else None


def passes_wanted(read: Read, failing_calls: int) -> Passes:
    """How often the decorator calls a passing test, and the flaky threshold it behaves
    as, given that it calls an always-failing test ``failing_calls`` times."""
    run, found = read.run(PASSING)
    calls = run.calls
    origins = frozenset(run.origins)
    if found.kind == "unread" and found.loop:
        return Passes(calls, None, origins, found.reason)
    if found.kind not in ("plain", "retry") or found.escapes or calls < 2 or failing_calls < 1:
        return Passes(calls, None, origins)
    max_runs = failing_calls + calls - 1
    if max_runs > MAX_CHECKED_RUNS:
        return Passes(calls, None, origins)
    for outcomes in sequences(max_runs, calls):
        if read.ends(outcomes) != flaky_ends(max_runs, calls, outcomes):
            return Passes(calls, None, origins)
    return Passes(calls, max_runs, origins)
