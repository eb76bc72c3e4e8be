"""The calculator behind ``detlint power``: a policy in, every number out.

Builds a ``Policy`` from the knobs a user names and computes the loss table,
q50, the trials that would replace the knob, and what measurements and green
runs prove. The result is a frozen value that the formatters render; nothing
here prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from detlint.model import (
    BLOCKING,
    SOFT_FAIL,
    FlakyRuns,
    JobRetries,
    Layer,
    Policy,
    RateEstimate,
    Repeat,
    Reruns,
    estimate_rate,
)

DEFAULT_RATES = (0.05, 0.10, 0.20, 0.50, 0.90)
DEFAULT_REFERENCE_RATE = 0.10
DEFAULT_TARGET = 0.95


@dataclass(frozen=True)
class Knobs:
    """The knobs as a user states them; ``None`` means not set."""

    trials: int = 1
    reruns: int | None = None
    retries: int | None = None
    max_runs: int | None = None
    min_passes: int | None = None
    repeat: int | None = None
    job_retries: int | None = None
    soft_fail: bool = False


def build_policy(knobs: Knobs) -> Policy:
    """Stack the knobs in the order they act: trials, test reruns, repeat, job, gate.

    Raises ValueError for combinations no real setup produces.
    """
    flaky_set = knobs.max_runs is not None or knobs.min_passes is not None
    if flaky_set and (knobs.reruns is not None or knobs.retries is not None):
        raise ValueError(
            "--max-runs/--min-passes (the flaky package) cannot be combined with "
            "--reruns or --retries: only one plugin handles a `flaky` marker"
        )
    layers: list[Layer] = []
    if knobs.reruns is not None:
        layers.append(Reruns(knobs.reruns, "pytest-rerunfailures"))
    if knobs.retries is not None:
        # With both plugins installed the attempts multiply.
        layers.append(Reruns(knobs.retries, "pytest-retry"))
    if flaky_set:
        max_runs = knobs.max_runs if knobs.max_runs is not None else 2
        min_passes = knobs.min_passes if knobs.min_passes is not None else 1
        if min_passes > max_runs:
            raise ValueError(f"--min-passes {min_passes} is larger than --max-runs {max_runs}")
        layers.append(FlakyRuns(max_runs, min_passes))
    if knobs.repeat is not None:
        layers.append(Repeat(knobs.repeat))
    if knobs.job_retries is not None:
        layers.append(JobRetries(knobs.job_retries))
    gate = SOFT_FAIL if knobs.soft_fail else BLOCKING
    return Policy(trials=knobs.trials, layers=tuple(layers), gate=gate)


@dataclass(frozen=True)
class RateRow:
    """One row of the loss table: a violation rate and what becomes of it."""

    rate: float
    one_attempt: float
    reported: float
    visible: float
    reported_without: float


@dataclass(frozen=True)
class ObservedRate:
    """A measured rate and what the policy makes of it.

    ``reported`` and ``reported_without`` hold the chance of a report at the
    estimate, the interval's low end and its high end, in that order.
    """

    estimate: RateEstimate
    reported: tuple[float, ...]
    reported_without: tuple[float, ...]


@dataclass(frozen=True)
class GreenRunBound:
    """The 95% upper bound on q that N green runs establish, with and without."""

    runs: int
    confidence: float
    bound: float | None
    bound_without: float | None


@dataclass(frozen=True)
class PowerAnalysis:
    """Everything ``detlint power`` reports, as numbers."""

    policy: Policy
    baseline: Policy
    rows: tuple[RateRow, ...]
    q50: float | None
    q50_without: float | None
    reference_rate: float
    target: float
    reference_reported: float
    reference_reported_without: float
    trials_needed_without: int | None
    trials_needed_with: int | None
    observed: ObservedRate | None
    green_runs: GreenRunBound | None
    # Green runs in a row that rule out the reference rate at 95% confidence, with the
    # knob and without it (None: never, the knob lets no failure block).
    runs_to_rule_out: int | None = None
    runs_to_rule_out_without: int | None = None


def analyse(
    policy: Policy,
    rates: Sequence[float] = DEFAULT_RATES,
    reference_rate: float = DEFAULT_REFERENCE_RATE,
    target: float = DEFAULT_TARGET,
    observed: tuple[int, int] | None = None,
    green_runs: int | None = None,
) -> PowerAnalysis:
    """Compute the whole report for ``policy``."""
    baseline = policy.baseline()
    rows = tuple(
        RateRow(
            rate=rate,
            one_attempt=policy.attempt(rate),
            reported=policy.reported(rate),
            visible=policy.visible(rate),
            reported_without=baseline.reported(rate),
        )
        for rate in rates
    )
    observed_rate = None
    if observed is not None:
        estimate = estimate_rate(*observed)
        points = (estimate.rate, estimate.low, estimate.high)
        observed_rate = ObservedRate(
            estimate=estimate,
            reported=tuple(policy.reported(point) for point in points),
            reported_without=tuple(baseline.reported(point) for point in points),
        )
    green = None
    if green_runs is not None:
        green = GreenRunBound(
            runs=green_runs,
            confidence=0.95,
            bound=policy.green_run_bound(green_runs),
            bound_without=baseline.green_run_bound(green_runs),
        )
    return PowerAnalysis(
        policy=policy,
        baseline=baseline,
        rows=rows,
        q50=policy.q50(),
        q50_without=baseline.q50(),
        reference_rate=reference_rate,
        target=target,
        reference_reported=policy.reported(reference_rate),
        reference_reported_without=baseline.reported(reference_rate),
        trials_needed_without=baseline.trials_needed(reference_rate, target),
        trials_needed_with=policy.trials_needed(reference_rate, target),
        observed=observed_rate,
        green_runs=green,
        runs_to_rule_out=policy.green_runs_needed(reference_rate),
        runs_to_rule_out_without=baseline.green_runs_needed(reference_rate),
    )
