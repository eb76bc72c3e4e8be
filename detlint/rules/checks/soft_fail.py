"""DET401 soft-fail: a soft fail, ``continue-on-error`` or ``allow_failure`` that covers
test failures lets a failing test pass the build.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING

from detlint.model import Policy
from detlint.rules.context import RuleContext, finding, loss_phrase
from detlint.rules.finding import Finding
from detlint.rules.fix_plans import (
    soft_fail_plan,
)

if TYPE_CHECKING:
    from detlint.compose.ci.gates import CiGate
from detlint.rules.ci_costs import (
    Pair,
    blocking_elsewhere,
    described,
    quoted_cost,
    runs_of,
    unseen_calls,
)
from detlint.rules.context import QUARANTINE


def soft_fail(context: RuleContext) -> Iterator[Finding]:
    """DET401: a soft fail, continue-on-error or allow_failure that covers test failures."""
    if not context.ci_knobs:
        return  # nothing to import the CI linking for
    from detlint.compose.ci.gates import GATE_OF_KNOB

    for knob in context.ci_knobs:
        if knob.kind not in GATE_OF_KNOB or not knob.covers_tests:
            continue
        runs = runs_of(knob, context)
        calls = unseen_calls(knob, runs, context)
        if calls is None:
            continue
        gates = context.ci_index.gates_by_gate.get(knob, [])

        def pair(gate: CiGate) -> Pair:
            return gate.policy, dataclasses.replace(gate.policy, gate=gate.inside.gate)

        plain = (Policy(gate=GATE_OF_KNOB[knob.kind]), Policy())
        numbers, which, costliest = quoted_cost(gates, pair, plain, context)
        which, details = described(knob, runs, calls, which, context)
        passes, outcome = "the build", ""
        own = knob.note.find("the job's own check run")
        if knob.kind == "continue-on-error" and own >= 0:  # job level (GitHub)
            passes, outcome = "the workflow run", f"; {knob.note[own:]}"
        elsewhere = blocking_elsewhere(costliest, context)
        message = (
            f"`{knob.key}: {knob.value}` lets failing tests pass {passes}: "
            f"{loss_phrase(numbers)} {which} ({details}){outcome}{elsewhere}"
        )
        if knob.kind == "soft-fail" and knob.value.lstrip().startswith("["):
            first = "soft-fail infrastructure exit statuses only and drop exit status 1"
        else:
            first = "let the step block on test failures"
        help_text = f"{first}, and quarantine the flaky tests visibly instead: {QUARANTINE}"
        yield finding("DET401", knob.span, message, help_text, numbers, fix=soft_fail_plan(knob))
