"""What measured trials say about the violation rate.

A team that ran a nondeterministic check n times and saw k mismatches has an
estimate of q, and a confidence interval says how far to trust it. The Wilson
score interval is used because it behaves at k = 0 and k = n, exactly where
determinism measurements usually land (0/60, 40/40).
"""

from __future__ import annotations

import functools
import math
import statistics
from dataclasses import dataclass


@dataclass(frozen=True)
class RateEstimate:
    """k violations in n trials: the point estimate and its interval."""

    mismatches: int
    trials: int
    rate: float
    low: float
    high: float
    confidence: float


def estimate_rate(mismatches: int, trials: int, confidence: float = 0.95) -> RateEstimate:
    """q-hat = k / n with the Wilson score interval (as scipy's ``binomtest`` gives it)."""
    for name, value in (("mismatches", mismatches), ("trials", trials)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if trials == 0:
        raise ValueError("trials must be at least 1")
    if mismatches > trials:
        raise ValueError(f"{mismatches} mismatches cannot come from {trials} trials")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")

    low, high = wilson_interval(mismatches, trials, confidence)
    return RateEstimate(
        mismatches=mismatches,
        trials=trials,
        rate=mismatches / trials,
        low=low,
        high=high,
        confidence=confidence,
    )


@functools.lru_cache(maxsize=16)
def _z(confidence: float) -> float:
    return statistics.NormalDist().inv_cdf((1.0 + confidence) / 2.0)


def wilson_interval(k: int, n: int, confidence: float) -> tuple[float, float]:
    """The Wilson score interval, in closed form: what ``scipy.stats.binomtest(k, n)
    .proportion_ci(method="wilson")`` gives (the tests compare them), without its cost
    (a report of thousands of tests asks for thousands of intervals)."""
    z = _z(confidence)
    p = k / n
    denominator = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high
