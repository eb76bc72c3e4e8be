"""What detlint says about one test's CI history, in the words every output shares.

The evidence report (text and Markdown) and the findings that quote CI
(``check --evidence``) state a test's measured rate in one sentence; it is
written here once so that the two cannot word the same measurement differently.
"""

from __future__ import annotations

from detlint.base.percentages import percent, percent_label
from detlint.evidence.rates import ATTEMPTS, FAILED_BUILDS, XFAILS
from detlint.evidence.view import TestEvidence


def interval(test: TestEvidence) -> str:
    rate = test.rate
    return f"{percent(rate.rate)} [{percent(rate.low)}, {percent(rate.high)}]"


def builds(count: int) -> str:
    return f"{count} build{'s' if count != 1 else ''}"


def worth_saying(test: TestEvidence) -> bool:
    """A test with a failed attempt, or one whose knobs hide failures."""
    return test.first_failures > 0 or (test.policy is not None and test.policy.masks)


def measured(test: TestEvidence) -> str:
    """``7 of 200 builds needed a rerun to pass: per-attempt failure rate 3.5% [1.7%, 7.0%]``,
    with the per-trial rate when the test makes several trials per attempt and the flip
    rate when it ran in two builds or more."""
    parts = []
    if test.flaky_passes:
        parts.append(f"{test.flaky_passes} of {builds(test.builds)} needed a rerun to pass")
    if test.expected_failures:
        parts.append(f"{test.expected_failures} of {builds(test.builds)} XFAIL")
    if test.hard_failures:
        parts.append(f"{test.hard_failures} of {builds(test.builds)} failed")
    if not parts:
        parts.append(f"no failed attempt in {builds(test.builds)}")
    confidence = percent_label(test.rate.confidence)
    text = (
        f"{'; '.join(parts)}: per-attempt failure rate {interval(test)} "
        f"({confidence} Wilson interval, {_basis(test)})"
    )
    if test.per_trial is not None:
        trial = test.per_trial
        text += (
            f"; per trial {percent(trial.rate)} [{percent(trial.low)}, {percent(trial.high)}] "
            f"at the {test.trials} trials per attempt the test's loop makes"
        )
    if test.flip_rate is not None:
        text += f"; flip rate {percent(test.flip_rate)} ({test.flips} of {test.pairs} build pairs)"
    return text


def _basis(test: TestEvidence) -> str:
    """What the rate counts: first attempts, or what the plugin leaves in the reports."""
    rate = test.rate
    if test.basis == ATTEMPTS:
        return (
            f"{rate.mismatches} of {rate.trials} attempts: flaky's min_passes hides which "
            "attempt failed"
        )
    if test.basis == XFAILS:
        return (
            f"{rate.mismatches} XFAIL of {rate.trials} attempts: under a strict xfail every "
            "other attempt passed its checks"
        )
    if test.basis == FAILED_BUILDS:
        return (
            f"from the {rate.mismatches} of {builds(rate.trials)} that failed: pytest-retry's "
            "retries are not in JUnit"
        )
    return f"{test.first_failures} of {test.builds} first attempts"


def hidden(test: TestEvidence) -> str:
    if test.policy is None or test.reported is None:
        return ""
    if not test.policy.masks:
        return (
            f"no knob hides it: a failure this frequent fails {percent(test.rate.rate)} of builds"
        )
    return (
        f"under {test.policy_text}: a violation this frequent is reported "
        f"{percent(test.reported)} of the time, {percent(test.rate.rate)} without"
    )


def green(test: TestEvidence) -> str:
    if not test.green or test.green_bound_without is None:
        return ""
    without = percent(test.green_bound_without)
    confidence = percent_label(test.rate.confidence)
    if test.policy is None:
        return f"{builds(test.green)} green: q < {without} per attempt ({confidence} confidence)"
    if not test.policy.masks:
        return f"{builds(test.green)} green show q < {without} per attempt ({confidence})"
    bound = "no bound at all" if test.green_bound is None else f"q < {percent(test.green_bound)}"
    return (
        f"{builds(test.green)} green under {test.policy_text} only show {bound}; "
        f"without the knob the same builds would show q < {without} ({confidence} confidence)"
    )
