"""Which count a test's per-attempt failure rate rests on, and that rate per trial.

The rate is of attempts: most reports record each build's first attempt, so the
builds whose first attempt failed, of the builds the test ran in, estimate it. Two
plugins leave that attempt's outcome out of the reports, and the rate then rests on
what they do record (the repository's knobs say which plugin applies):

- flaky with ``min_passes`` > 1 reruns passing attempts too, and logs every attempt
  it reruns as a bare teardown, passed or failed alike. Which attempt failed is lost,
  how many did is not: a build that passed took exactly ``min_passes`` passes, one
  that failed exactly ``max_runs - min_passes + 1`` failures. The rate is the failed
  attempts of all attempts (for attempts that fail independently this is the
  maximum-likelihood estimate whatever the rule that stopped them).
- a strict xfail turns the attempt's outcome over: an XFAIL is the violation and
  ends the build green, a strict XPASS (the checks passed) fails it, and
  pytest-rerunfailures reruns that XPASS. Every attempt but a build's XFAIL passed
  its checks, whichever format leaves the reruns bare, so the rate is the XFAILs of
  all attempts (a test whose xfail names ``raises=`` may also fail otherwise; that is
  not told apart).
- pytest-retry retries inside the call and JUnit keeps only the last: a build failed
  when all R + 1 attempts failed, so the rate is the failed builds' share to the
  power ``1 / (R + 1)``, its interval mapped the same way.

Per trial: when the repository gives the test T trials per attempt (a loop bound
detlint reads), an attempt fails when any trial does, so the per-trial rate is
``1 - (1 - p) ** (1 / T)`` (its interval mapped alike); this is what compares with a
reference rate stated per trial.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from detlint.model import FlakyRuns, Policy, Reruns
from detlint.model.evidence import RateEstimate, estimate_rate
from detlint.model.layers import all_fail_inverse, any_fails_inverse

FIRST_ATTEMPTS = "first attempts"
ATTEMPTS = "attempts"
FAILED_BUILDS = "failed builds"
XFAILS = "XFAIL attempts"
RETRY_PLUGIN = "pytest-retry"


@dataclass(frozen=True)
class BuildCounts:
    """What one test's builds recorded, as far as the rate needs it."""

    builds: int
    first_failures: int  # builds that recorded a failed attempt
    hard_failures: int  # builds whose last attempt failed
    green: int  # builds whose last attempt passed
    green_attempts: int  # attempts recorded in the green builds
    failed_attempts: tuple[int, ...]  # attempts recorded in each build that failed
    attempts: int  # attempts recorded in all builds
    expected_failures: int  # builds that ended in an XFAIL
    junit_only: bool  # every build came from a JUnit file


@dataclass(frozen=True)
class AttemptRate:
    """The per-attempt failure rate and the count it rests on (``basis``)."""

    estimate: RateEstimate
    basis: str  # FIRST_ATTEMPTS, ATTEMPTS, XFAILS or FAILED_BUILDS
    # True when the builds record which of their attempts failed (a flip rate means
    # something); flaky with min_passes > 1 does not.
    per_build: bool = True


def attempt_rate(counts: BuildCounts, policy: Policy | None, confidence: float) -> AttemptRate:
    """The per-attempt rate the reports allow under the test's knobs (None: unknown)."""
    if policy is not None and policy.inverted:
        xfails = estimate_rate(counts.expected_failures, counts.attempts, confidence)
        return AttemptRate(xfails, XFAILS)
    layers = policy.layers if policy is not None else ()
    for layer in layers:
        if isinstance(layer, FlakyRuns) and layer.source == "flaky" and layer.min_passes > 1:
            return _from_attempts(counts, layer.max_runs, layer.min_passes, confidence)
        retry = isinstance(layer, Reruns) and layer.plugin == RETRY_PLUGIN and layer.masks
        if retry and counts.junit_only and isinstance(layer, Reruns):
            return _from_failed_builds(counts, layer.count + 1, confidence)
    first = estimate_rate(counts.first_failures, counts.builds, confidence)
    return AttemptRate(first, FIRST_ATTEMPTS)


def _from_attempts(
    counts: BuildCounts, max_runs: int, min_passes: int, confidence: float
) -> AttemptRate:
    failures = max(0, counts.green_attempts - min_passes * counts.green)
    failures += sum(min(recorded, max_runs - min_passes + 1) for recorded in counts.failed_attempts)
    total = counts.green_attempts + sum(counts.failed_attempts)
    return AttemptRate(estimate_rate(failures, total, confidence), ATTEMPTS, per_build=False)


def _from_failed_builds(counts: BuildCounts, attempts: int, confidence: float) -> AttemptRate:
    share = estimate_rate(counts.hard_failures, counts.builds, confidence)
    mapped = replace(
        share,
        rate=all_fail_inverse(share.rate, attempts),
        low=all_fail_inverse(share.low, attempts),
        high=all_fail_inverse(share.high, attempts),
    )
    return AttemptRate(mapped, FAILED_BUILDS)


def per_trial(rate: RateEstimate, policy: Policy | None) -> RateEstimate | None:
    """The rate per trial when the test makes more than one trial per attempt and fails
    on any of them; None otherwise (with a pass threshold there is no closed form)."""
    if policy is None or policy.trials <= 1 or policy.threshold is not None:
        return None
    trials = policy.trials
    return replace(
        rate,
        rate=any_fails_inverse(rate.rate, trials),
        low=any_fails_inverse(rate.low, trials),
        high=any_fails_inverse(rate.high, trials),
    )
