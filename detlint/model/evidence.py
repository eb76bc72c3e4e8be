"""What measured trials say about the violation rate.

A team that ran a nondeterministic check n times and saw k mismatches has an
estimate of q, and a confidence interval says how far to trust it. The Wilson
score interval is used because it behaves at k = 0 and k = n, exactly where
determinism measurements usually land (0/60, 40/40).
"""

from __future__ import annotations

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
    """q-hat = k / n with the Wilson score interval (scipy's ``binomtest``)."""
    for name, value in (("mismatches", mismatches), ("trials", trials)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if trials == 0:
        raise ValueError("trials must be at least 1")
    if mismatches > trials:
        raise ValueError(f"{mismatches} mismatches cannot come from {trials} trials")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")

    from scipy.stats import binomtest

    interval = binomtest(mismatches, trials).proportion_ci(
        confidence_level=confidence, method="wilson"
    )
    return RateEstimate(
        mismatches=mismatches,
        trials=trials,
        rate=mismatches / trials,
        low=max(0.0, float(interval.low)),
        high=min(1.0, float(interval.high)),
        confidence=confidence,
    )
