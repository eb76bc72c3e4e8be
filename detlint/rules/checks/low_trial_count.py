"""DET301 low-trial-count: a trial loop too short to catch the reference rate, or one
whose pass threshold lets failing trials through."""

from __future__ import annotations

from collections.abc import Iterator

from detlint.base.percentages import percent, percent_label
from detlint.rules.context import RuleContext, finding, loss
from detlint.rules.finding import Finding
from detlint.rules.trial_advice import threshold_help


def low_trial_count(context: RuleContext) -> Iterator[Finding]:
    seen = set()
    for gate in context.gates:
        trials = gate.test.trials
        if trials.span is None or trials.span in seen:
            continue
        if trials.env is None and not gate.policy.masks:
            # A literal `range(10)` in an ordinary test is a loop, not evidence of a
            # trial count; it counts as one only where a knob marks the test flaky.
            continue
        numbers = loss(gate, context)
        attempt = gate.policy.attempt(context.reference_rate)
        if attempt >= context.target:
            continue
        q, target = percent_label(context.reference_rate), percent_label(context.target)
        if gate.policy.fails_at != 1:
            seen.add(trials.span)
            yield finding(
                "DET301",
                trials.span,
                f"{trials.describe()}: one attempt detects a {q} violation {percent(attempt)} "
                f"of the time, under the {target} target ({gate.test.name})",
                threshold_help(gate, context.reference_rate, context.target),
                numbers,
            )
            continue
        if numbers.trials_needed is None:
            continue
        seen.add(trials.span)
        knob = f"raise {trials.env} to" if trials.env else "loop"
        yield finding(
            "DET301",
            trials.span,
            f"{trials.describe()} detect a {q} violation {percent(attempt)} of the time per "
            f"attempt, under the {target} target ({gate.test.name})",
            f"{knob} {numbers.trials_needed} trials to reach {target}",
            numbers,
        )
