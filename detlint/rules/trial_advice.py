"""What a finding advises about a test's trials: more of them, or every one required.

More trials raise detection when any failing trial fails the test, and when the
test's pass threshold fails it on a fixed number of failing trials
(``passes >= N - 1``). A threshold of a fixed number of passes (``passes >= 3``)
lets one more trial fail for every trial added: raising the count lowers
detection, so the advice is to require every trial to pass first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detlint.base.percentages import percent, percent_label
from detlint.readers.python.facts import TrialCount

if TYPE_CHECKING:
    from detlint.compose.test_gate import TestGate


def run_trials(trials: TrialCount, needed: int) -> str:
    """ "raise KERNEL_TRIALS to 29", "raise the trial loop from 5 to 29 iterations"; for
    a loop detlint cannot count, the figures are per item it checks, and so is this."""
    if trials.env is not None:
        return f"raise {trials.env} to {needed}"
    if trials.span is not None and trials.mapped:
        return f"raise the range `{trials.mapped}` is mapped over from {trials.count} to {needed}"
    if trials.span is not None and trials.loops > 1:
        return (
            f"raise the {trials.loops} trial loops from {trials.count} to {needed}"
            " iterations in all"
        )
    if trials.span is not None and trials.nested > 1:
        return (
            f"raise the {trials.nested} nested trial loops from {trials.count} to {needed}"
            " iterations in all"
        )
    if trials.span is not None:
        return f"raise the trial loop from {trials.count} to {needed} iterations"
    loop = trials.uncounted
    if loop is not None:  # the figures are per item the loop checks
        return f"run {needed} trials of each check the loop on line {loop.line} makes per attempt"
    return f"run {needed} trials per attempt in a loop inside the test"


def more_trials(gate: TestGate, reference_rate: float, target: float) -> tuple[str, bool]:
    """The trial half of a help line, and whether it reaches the target."""
    trials, threshold = gate.test.trials, gate.policy.threshold
    baseline = gate.policy.baseline()
    if threshold is None or threshold.follows_count:
        needed = baseline.trials_needed(reference_rate, target)
        if needed is None:
            return "no trial count reaches the target at this rate", False
        if trials.count > 1 and needed <= trials.count:
            # The test already runs enough trials: without the knob it reports the
            # violation often enough; raising a count to fewer would be no advice.
            alone = percent(baseline.reported(reference_rate))
            return (
                f"keep its {trials.count} trials per attempt, which alone report a "
                f"{percent_label(reference_rate)} violation {alone} of the time",
                False,
            )
        return run_trials(trials, needed), True
    required = (
        "require every trial to pass (the check needs "
        f"{threshold.passes_needed(trials.count)} passes of {trials.count})"
    )
    needed = baseline.every_trial().trials_needed(reference_rate, target)
    if needed is None:
        return f"{required}; no trial count reaches the target at this rate", False
    return f"{required} and {run_trials(trials, needed)}", True


def threshold_help(gate: TestGate, reference_rate: float, target: float) -> str:
    """DET301's help for a test whose pass threshold lets some trials fail."""
    trials, policy = gate.test.trials, gate.policy
    threshold = policy.threshold
    assert threshold is not None
    count, failing = trials.count, policy.fails_at
    q, goal = percent_label(reference_rate), percent_label(target)
    every = policy.every_trial()
    every_needed = every.baseline().trials_needed(reference_rate, target)
    then = (
        f"{count} trial{'s' if count != 1 else ''} then detect a {q} violation "
        f"{percent(every.attempt(reference_rate))} of the time per attempt"
    )
    if every_needed is not None and every_needed > count:
        then += f"; {run_trials(trials, every_needed)} to reach {goal}"
    requiring = f"require every trial to pass ({then})"
    if threshold.follows_count:
        needed = policy.baseline().trials_needed(reference_rate, target)
        if needed is not None:
            return (
                f"{run_trials(trials, needed)} to reach {goal} with this threshold, or {requiring}"
            )
        return requiring[0].upper() + requiring[1:]
    text = f"the check passes with up to {failing - 1} of {count} trials failing; {requiring}"
    if threshold.fixed_passes:
        text += "; more trials under this threshold lower detection, they do not raise it"
    return text
