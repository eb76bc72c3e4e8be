"""A Monte Carlo re-enactment of what each knob does, written from the plugins'
documented mechanics (run, look at the outcome, run again) rather than from the
model's formulas, so that agreement between the two means something.

Each simulator is a function ``run(rng, n) -> bool array`` giving, for n
independent executions, whether that execution ended in a failure.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Run = Callable[[np.random.Generator, int], np.ndarray]


def trials(q: float, count: int) -> Run:
    """One attempt: ``count`` trials, the attempt fails if any trial shows the violation."""

    def run(rng: np.random.Generator, n: int) -> np.ndarray:
        return (rng.random((n, count)) < q).any(axis=1)

    return run


def counted_trials(q: float, count: int, check: Callable[[np.ndarray, int], np.ndarray]) -> Run:
    """One attempt that counts its passing trials and asserts ``check(passes, count)``
    (``passes >= 3``): it fails where the check is false."""

    def run(rng: np.random.Generator, n: int) -> np.ndarray:
        passes = (rng.random((n, count)) >= q).sum(axis=1)
        return ~check(passes, count)

    return run


def rerun_until_pass(inner: Run, reruns: int) -> Run:
    """pytest-rerunfailures / pytest-retry / a CI job retry: run again while failing."""

    def run(rng: np.random.Generator, n: int) -> np.ndarray:
        failed = inner(rng, n)
        for _ in range(reruns):
            still = np.flatnonzero(failed)
            if still.size == 0:
                break
            failed[still] = inner(rng, still.size)
        return failed

    return run


def flaky_runs(inner: Run, max_runs: int, min_passes: int) -> Run:
    """The flaky package: stop at ``min_passes`` passes or when they can no longer come."""

    def run(rng: np.random.Generator, n: int) -> np.ndarray:
        passes = np.zeros(n, dtype=int)
        runs = np.zeros(n, dtype=int)
        active = np.ones(n, dtype=bool)
        while active.any():
            index = np.flatnonzero(active)
            passed = ~inner(rng, index.size)
            passes[index] += passed
            runs[index] += 1
            settled = (passes[index] >= min_passes) | (
                min_passes - passes[index] > max_runs - runs[index]
            )
            active[index[settled]] = False
        return passes < min_passes

    return run


def every_copy(inner: Run, copies: int) -> Run:
    """pytest-repeat: each copy is its own test and each must pass."""

    def run(rng: np.random.Generator, n: int) -> np.ndarray:
        failed = np.zeros(n, dtype=bool)
        for _ in range(copies):
            failed |= inner(rng, n)
        return failed

    return run


def fails_when_passing(inner: Run) -> Run:
    """xfail(strict=True): an attempt that passes is an XPASS(strict), i.e. a failure."""

    def run(rng: np.random.Generator, n: int) -> np.ndarray:
        return ~inner(rng, n)

    return run


def share(run: Run, n: int, seed: int) -> float:
    """The simulated probability that an execution fails."""
    rng = np.random.default_rng(seed)
    return float(run(rng, n).mean())


def tolerance(p: float, n: int, sigmas: float = 5.0) -> float:
    """``sigmas`` binomial standard errors of a share of n, floored at one count.

    The floor keeps the check meaningful where p(1-p) is so small that one
    stray event would exceed the raw standard error.
    """
    variance = max(p * (1.0 - p), 1.0 / n)
    return sigmas * (variance / n) ** 0.5
