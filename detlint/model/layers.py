"""The layers that stand between one failing attempt and a red build.

Each layer maps the probability that its input fails to the probability that
its output fails: a rerun plugin turns "one attempt fails" into "every attempt
fails", a job retry does the same one level up, pytest-repeat turns it into
"any repetition fails". Layers are frozen values so that later passes can build
one stack per test, compare stacks and use them as dictionary keys.

A layer also knows its own inverse where a closed form exists, so that the
policy can solve for rates (q50, evidence bounds) without a numeric root finder
in the common cases.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable


@runtime_checkable
class Layer(Protocol):
    """One step of the composition, applied from the inside out."""

    kind: ClassVar[str]

    @property
    def masks(self) -> bool:
        """True when the layer is a knob that lowers the chance of a report."""
        ...

    def apply(self, failing: float) -> float:
        """P(this layer's outcome fails) given P(its input fails)."""
        ...

    def invert(self, failing: float) -> float | None:
        """The input probability that gives `failing`, or None without a closed form."""
        ...

    def describe(self) -> str:
        """A short human description, e.g. ``reruns=3 (pytest-rerunfailures)``."""
        ...


def _check_count(name: str, value: int, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


def all_fail(failing: float, attempts: int) -> float:
    """P(every one of `attempts` independent attempts fails)."""
    return float(failing**attempts)


def any_fails(failing: float, attempts: int) -> float:
    """P(at least one of `attempts` independent attempts fails)."""
    return float(1.0 - (1.0 - failing) ** attempts)


def all_fail_inverse(failing: float, attempts: int) -> float:
    return float(failing ** (1.0 / attempts))


def any_fails_inverse(failing: float, attempts: int) -> float:
    return float(1.0 - (1.0 - failing) ** (1.0 / attempts))


@dataclass(frozen=True)
class Reruns:
    """pytest-rerunfailures ``reruns=R``, pytest-retry ``retries=R``, or a retry
    decorator (tenacity, backoff) around the test: ``source`` names which.

    The test is reported failed only if all R + 1 attempts fail.
    """

    kind: ClassVar[str] = "reruns"

    count: int
    plugin: str = "pytest-rerunfailures"

    def __post_init__(self) -> None:
        _check_count("reruns", self.count, 0)

    @property
    def masks(self) -> bool:
        return self.count > 0

    def apply(self, failing: float) -> float:
        return all_fail(failing, self.count + 1)

    def invert(self, failing: float) -> float | None:
        return all_fail_inverse(failing, self.count + 1)

    def describe(self) -> str:
        word = "reruns" if self.plugin == "pytest-rerunfailures" else "retries"
        return f"{word}={self.count} ({self.plugin}, {self.count + 1} attempts)"


@dataclass(frozen=True)
class FlakyRuns:
    """The flaky package: run up to ``max_runs`` times, pass once ``min_passes`` passed.

    The test is reported failed when fewer than K of M runs pass:
    ``P[Binomial(M, 1 - x) < K]``. flaky stops early once the outcome is
    settled, which does not change that probability. With K > 1 the layer
    hides rare failures yet reports frequent ones *more* often than a single
    attempt would (two passes are needed), so it is not a pure retry.
    """

    kind: ClassVar[str] = "flaky"

    max_runs: int = 2
    min_passes: int = 1
    # What applies the rule: the flaky package, or a decorator of the repository's own
    # read as behaving as it does ("repeat_with_success_at_least at tests/x.py:17").
    source: str = "flaky"

    def __post_init__(self) -> None:
        _check_count("max_runs", self.max_runs, 1)
        _check_count("min_passes", self.min_passes, 1)
        if self.min_passes > self.max_runs:
            raise ValueError(
                f"min_passes ({self.min_passes}) must not exceed max_runs ({self.max_runs})"
            )

    @property
    def masks(self) -> bool:
        return self.max_runs > self.min_passes

    def apply(self, failing: float) -> float:
        # The exact binomial sum: M is a handful of runs, and the check path
        # must not pay scipy's import time. The tests cross-check scipy.stats.binom.
        passing = 1.0 - failing
        return math.fsum(
            math.comb(self.max_runs, passes) * passing**passes * failing ** (self.max_runs - passes)
            for passes in range(self.min_passes)
        )

    def invert(self, failing: float) -> float | None:
        if self.min_passes == 1:
            return all_fail_inverse(failing, self.max_runs)
        return None

    def break_even(self) -> float | None:
        """The failure rate of one run at which the layer reports a failure as often as
        one run would: below it less often, above it more often. None with one pass
        wanted (less often at every rate) or every run wanted (more often at every rate).
        """
        if self.min_passes == 1 or self.min_passes >= self.max_runs:
            return None
        low, high = 0.0, 1.0
        for _ in range(60):  # apply(x) - x is below 0 under the root and above it over
            middle = (low + high) / 2
            low, high = (middle, high) if self.apply(middle) < middle else (low, middle)
        return low

    def describe(self) -> str:
        return f"max_runs={self.max_runs}, min_passes={self.min_passes} ({self.source})"


@dataclass(frozen=True)
class JobRetries:
    """A CI job retry whose rules cover the test-failure exit status.

    The job is red only if all L + 1 runs of it are red.
    """

    kind: ClassVar[str] = "job_retries"

    limit: int
    system: str = "CI"

    def __post_init__(self) -> None:
        _check_count("job retry limit", self.limit, 0)

    @property
    def masks(self) -> bool:
        return self.limit > 0

    def apply(self, failing: float) -> float:
        return all_fail(failing, self.limit + 1)

    def invert(self, failing: float) -> float | None:
        return all_fail_inverse(failing, self.limit + 1)

    def describe(self) -> str:
        return f"{self.system} job retries={self.limit} ({self.limit + 1} job runs)"


@dataclass(frozen=True)
class Repeat:
    """pytest-repeat ``count=N`` or pytest-flakefinder: every copy must pass.

    This raises detection: ``1 - (1 - x)**N``.
    """

    kind: ClassVar[str] = "repeat"

    count: int
    source: str = "pytest-repeat"

    def __post_init__(self) -> None:
        _check_count("repeat count", self.count, 1)

    @property
    def masks(self) -> bool:
        return False

    def apply(self, failing: float) -> float:
        return any_fails(failing, self.count)

    def invert(self, failing: float) -> float | None:
        return any_fails_inverse(failing, self.count)

    def describe(self) -> str:
        return f"repeat={self.count} ({self.source})"


@dataclass(frozen=True)
class StrictXfail:
    """``xfail(strict=True)``: an attempt fails the suite when the test *passes*.

    It inverts the attempt's outcome, so it must sit right above the trials,
    below any rerun layer (pytest-rerunfailures reruns a strict XPASS).
    """

    kind: ClassVar[str] = "strict_xfail"

    @property
    def masks(self) -> bool:
        return True

    def apply(self, failing: float) -> float:
        return 1.0 - failing

    def invert(self, failing: float) -> float | None:
        return 1.0 - failing

    def describe(self) -> str:
        return "xfail(strict=True) (fails when the test passes)"
